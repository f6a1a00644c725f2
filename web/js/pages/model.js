// One model's page, #/models/NAME (GET /api/models/NAME): what it is, its
// columns with their types and descriptions, its checks with their last
// results and failing rows, its builds, its profiles with their anomalies
// marked, what it reads and what reads it (column by column where the
// lineage is known), its SQL and the SQL a build runs. Read again when an
// event of the tab's stream names the model, at most every 2 s.

import { get } from '../api.js';
import { duration, el, fill, number, table } from '../dom.js';

const AGAIN_MS = 2000;
const READS = { model: true, seed: true };

function link(name) {
  return el('a', { href: `#/models/${encodeURIComponent(name)}` }, name);
}

function section(id, title, ...body) {
  return el('section', { id, class: 'part' }, el('h2', {}, title), body);
}

function none(text) {
  return el('p', { class: 'muted' }, text);
}

function head(doc) {
  const facts = [
    el('span', { class: 'badge' }, doc.materialized),
    doc.live ? el('span', { class: 'badge live' }, 'live') : null,
    doc.strategy ? el('span', { class: 'muted' }, doc.strategy) : null,
    doc.unique_key.length ? el('span', { class: 'muted' }, `key ${doc.unique_key.join(', ')}`) : null,
    doc.tags.length ? el('span', { class: 'muted' }, `tags ${doc.tags.join(', ')}`) : null,
    el('code', { id: 'model-path' }, doc.path),
  ];
  const links = [
    doc.temporal ? el('a', { id: 'model-windows', href: `#/windows/${encodeURIComponent(doc.name)}` }, 'Windows') : null,
    doc.live ? el('a', { href: '#/live' }, 'Live') : null,
    el('a', { href: '#/dag' }, 'DAG'),
    el('a', { href: '#/models' }, 'All models'),
  ];
  const built = doc.built
    ? `built ${number(doc.built.build_count)} time${doc.built.build_count === 1 ? '' : 's'}, last at ${doc.built.last_built_at}`
    : doc.built === null ? 'never built' : null;
  return [
    el('div', { class: 'pagehead' }, el('h1', { id: 'model-name' }, doc.name), el('span', { class: 'facts' }, facts)),
    doc.description ? el('p', { class: 'desc', id: 'model-description' }, doc.description) : null,
    el('p', { class: 'links' }, links, built ? el('span', { class: 'muted' }, built) : null),
    doc.history_error ? el('p', { class: 'notice' }, `Its history could not be read: ${doc.history_error}`) : null,
  ];
}

function columns(doc) {
  if (!doc.columns.length) {
    return none(doc.kind === 'seed' || doc.built
      ? 'No columns recorded.'
      : 'Its columns show once a build made its table (sluice run), with those described by @column.');
  }
  return table(['Column', 'Type', 'Description'], doc.columns.map((c) => el('tr', { data: { column: c.name } },
    el('td', {}, el('code', { data: { field: 'name' } }, c.name)),
    el('td', { data: { field: 'type' } }, c.type || '–'),
    el('td', { data: { field: 'description' } }, c.description || '',
      c.in_table === false ? el('span', { class: 'muted' }, ' (described, but its last build made no such column)') : null))),
  { id: 'columns-table' });
}

function sample(s) {
  if (!s || !s.rows.length) return null;
  return table(s.columns, s.rows.map((r) => el('tr', {}, r.map((v) => el('td', { class: v === null ? 'muted' : null }, v ?? 'NULL')))),
    { class: 'sample' });
}

function result(c) {
  if (c.failures === null) return el('span', { class: 'muted' }, 'not run since');
  if (c.failures === 0) return el('span', { class: 'badge ok' }, 'held');
  const word = c.severity === 'warn' ? 'warn' : 'failing';
  return el('span', { class: `badge ${word}` }, `${number(c.failures)} failing row${c.failures === 1 ? '' : 's'}`);
}

function checks(doc) {
  if (!doc.checks.length) return none('No checks (@assert).');
  const when = doc.checked
    ? el('p', { class: 'muted' }, `Last checked at ${doc.checked.checked_at}`,
      doc.checked.run_id ? ` (run ${doc.checked.run_id})` : '',
      doc.checked.window ? `, ${doc.checked.window}` : '',
      doc.checked.in ? `, in the build of ${doc.checked.in}` : '')
    : none('Not checked yet.');
  return [when, table(['Check', 'Severity', 'Last result'], doc.checks.map((c) => el('tr', { data: { check: c.check } },
    el('td', {}, el('code', {}, c.check), el('span', { class: 'muted' }, ` line ${c.line}`), sample(c.sample)),
    el('td', {}, c.severity),
    el('td', { data: { field: 'result' } }, result(c)))), { id: 'checks-table' })];
}

function runs(doc) {
  if (!doc.runs) return none('The builds show with a server.');
  if (!doc.runs.length) return none('No builds recorded.');
  return table(['Finished', 'Run', 'Type', 'Status', 'Rows', 'Took', 'Message'], doc.runs.map((r) => el('tr', { data: { run: r.run_id ?? '' } },
    el('td', {}, r.finished_at || '–'),
    el('td', { class: 'num' }, r.run_id ?? '–'),
    el('td', {}, r.run_type || '', r.env ? el('span', { class: 'muted' }, ` ${r.env}`) : null),
    el('td', {}, el('span', { class: `badge ${r.status || ''}` }, r.status || '–')),
    el('td', { class: 'num' }, number(r.rows)),
    el('td', { class: 'num' }, duration(r.duration_ms)),
    el('td', { class: 'error-text' }, r.message || ''))), { id: 'runs-table' });
}

function anomaly(a) {
  const where = a.column ? `${a.metric} of ${a.column}` : a.metric;
  return el('div', { class: `anomaly ${a.level}` }, `${where} ${a.value} outside [${a.low}, ${a.high}] (median ${a.median} of ${a.history})`);
}

function profiles(doc) {
  if (!doc.profiles) return none('The profiles show with a server.');
  if (!doc.profiles.length) return none('No profiles yet.');
  const last = doc.profiles[0];
  return [
    table(['Taken', 'By', 'Rows', 'Status', 'Anomalies'], doc.profiles.map((p) => el('tr', {
      class: p.anomalies.length ? 'anomalous' : null, data: { anomalies: p.anomalies.length } },
    el('td', {}, p.taken_at), el('td', {}, p.kind, p.run_id ? ` (run ${p.run_id})` : ''),
    el('td', { class: 'num' }, number(p.rows)),
    el('td', {}, el('span', { class: `badge ${p.status}` }, p.status)),
    el('td', {}, p.anomalies.map(anomaly)))), { id: 'profiles-table' }),
    el('h3', {}, `Columns at ${last.taken_at}`),
    table(['Column', 'NULLs', 'NULL rate', 'Least', 'Greatest', 'Distinct'], last.columns.map((c) => el('tr', {},
      el('td', {}, el('code', {}, c.name)), el('td', { class: 'num' }, number(c.nulls)),
      el('td', { class: 'num' }, c.null_rate === null ? '–' : `${number(c.null_rate * 100, 2)} %`),
      el('td', {}, c.min ?? '–'), el('td', {}, c.max ?? '–'), el('td', { class: 'num' }, number(c.distinct))))),
  ];
}

function node(n) {
  return el('li', { data: { kind: n.kind } }, READS[n.kind] ? link(n.name) : el('span', {}, n.name),
    el('span', { class: 'muted' }, ` ${n.kind}`));
}

function lineage(doc) {
  const models = new Set(doc.inputs.filter((n) => READS[n.kind]).map((n) => n.name));
  const parts = [
    el('div', { class: 'columns' },
      el('div', {}, el('h3', {}, 'Reads'), doc.inputs.length
        ? el('ul', { class: 'plain', id: 'model-inputs' }, doc.inputs.map(node)) : none('Nothing.'),
      doc.declared_inputs.length ? el('ul', { class: 'plain' }, doc.declared_inputs.map((d) =>
        el('li', {}, d.name, el('span', { class: 'muted' }, ` ${d.type}: ${d.where}`)))) : null),
      el('div', {}, el('h3', {}, 'Read by'), doc.readers.length
        ? el('ul', { class: 'plain', id: 'model-readers' }, doc.readers.map(node)) : none('No model.'))),
  ];
  if (doc.lineage) {
    parts.push(el('h3', {}, 'Columns from'), table(['Column', 'From'], Object.entries(doc.lineage).map(([col, ins]) =>
      el('tr', {}, el('td', {}, el('code', {}, col)), el('td', {}, ins.map((i) => el('div', {},
        models.has(i.relation) ? link(i.relation) : i.relation, `.${i.column} `,
        el('span', { class: 'muted' }, i.kind.toLowerCase())))))), { id: 'lineage-table' }));
  }
  return parts;
}

function sql(doc) {
  return [
    el('h3', {}, doc.path),
    el('pre', { class: 'sql', id: 'sql-text' }, doc.text || ''),
    el('h3', {}, 'Compiled (what sluice compile prints, every watermark 0)'),
    doc.compiled !== null
      ? el('pre', { class: 'sql', id: 'sql-compiled' }, doc.compiled)
      : el('p', { class: 'error-text' }, doc.compile_error),
  ];
}

function draw(doc) {
  return [
    head(doc),
    section('model-columns', 'Columns', columns(doc)),
    section('model-checks', 'Checks', checks(doc)),
    section('model-runs', 'Builds', runs(doc)),
    section('model-profiles', 'Profiles', profiles(doc)),
    section('model-lineage', 'Lineage', lineage(doc)),
    section('model-sql', 'SQL', sql(doc)),
  ];
}

export function mountModel(root, { feed }, name) {
  const v = { alive: true, loading: false, timer: null, last: 0 };
  const page = el('div', { id: 'model-page' }, el('p', { class: 'muted' }, 'Loading…'));
  root.append(page);

  async function load() {
    if (v.loading) return;
    v.loading = true;
    v.last = Date.now();
    try {
      const doc = await get(`/api/models/${encodeURIComponent(name)}`);
      if (v.alive) fill(page, draw(doc));
    } catch (err) {
      if (v.alive && err.status !== 401) fill(page, el('h1', {}, name), el('p', { class: 'error', id: 'model-error' }, err.message));
    } finally {
      v.loading = false;
    }
  }

  function onEvent(event, data) {
    if (data?.model !== name || v.timer) return;
    v.timer = setTimeout(() => {
      v.timer = null;
      load();
    }, Math.max(0, v.last + AGAIN_MS - Date.now()));
  }

  const stop = feed.subscribe(onEvent);
  load();
  return () => {
    v.alive = false;
    stop();
    clearTimeout(v.timer);
  };
}
