// The Runs and alerts page (GET /api/runs): the runs of the run log, newest
// first, each with its models (status, rows, duration, message), older
// ones on demand; the live runner's own rows (summaries, pauses,
// failures); and the alerts the project's processes sent, with how their
// command took them. Read again every 5 s, and soon after an event of the
// tab's stream says a model failed or recovered.

import { get } from '../api.js';
import { duration, el, fill, number, table } from '../dom.js';

const REFRESH_MS = 5000;
const AFTER_EVENT_MS = 500;

function model(name) {
  return name ? el('a', { href: `#/models/${encodeURIComponent(name)}` }, name) : '–';
}

function badge(status) {
  return el('span', { class: `badge ${status || ''}` }, status || '–');
}

// A run, its models shown while it is open: at first a run that did not
// go well is, then as the reader left it.
function run(r, opened) {
  const open = opened.get(r.run_id) ?? r.status !== 'ok';
  return el('details', { class: 'run', open, data: { run: r.run_id, status: r.status },
    ontoggle: (e) => opened.set(r.run_id, e.target.open) },
    el('summary', {},
      el('strong', {}, `Run ${r.run_id}`), ' ', badge(r.status), ' ',
      el('span', { class: 'muted' }, `${r.run_type || ''}${r.env ? ` in ${r.env}` : ''} · ${r.started_at} · `
        + `${duration(r.duration_ms)} · ${number(r.models.length)} model${r.models.length === 1 ? '' : 's'} · ${number(r.rows)} rows`)),
    table(['Model', 'Status', 'Rows', 'Took', 'Message'], r.models.map((m) => el('tr', { data: { model: m.model, status: m.status } },
      el('td', {}, model(m.model)), el('td', {}, badge(m.status)),
      el('td', { class: 'num' }, number(m.rows)), el('td', { class: 'num' }, duration(m.duration_ms)),
      el('td', { class: 'error-text' }, m.message || '')))));
}

function alert(a) {
  return el('tr', { data: { alert: a.alert, model: a.model ?? '' } },
    el('td', {}, a.at || '–'),
    el('td', {}, el('span', { class: `kind ${a.alert}` }, a.alert)),
    el('td', {}, model(a.model)),
    el('td', { class: 'error-text' }, a.error || ''),
    el('td', { class: a.delivery === 'sent' || a.delivery === 'no command' ? 'muted' : 'error-text' }, a.delivery || ''));
}

export function mount(root, { feed }) {
  const v = { alive: true, loading: false, timer: null, runs: [], before: null, opened: new Map() };
  const notice = el('p', { class: 'notice', id: 'notice', role: 'status' });
  const runs = el('section', { id: 'runs' }, el('p', { class: 'muted' }, 'Loading…'));
  const more = el('button', { type: 'button', id: 'older', hidden: true, onclick: () => older() }, 'Older runs');
  const live = el('section', { id: 'live-rows' });
  const alerts = el('section', { id: 'alerts' });
  root.append(el('div', { class: 'pagehead' }, el('h1', {}, 'Runs and alerts')), notice,
    el('h2', {}, 'Alerts sent'), alerts,
    el('h2', {}, 'Runs'), runs, more, live);

  function drawRuns() {
    fill(runs, v.runs.length ? v.runs.map((r) => run(r, v.opened)) : el('p', { class: 'muted' }, 'No runs yet.'));
    more.hidden = !v.before;
  }

  async function load() {
    if (v.loading) return;
    v.loading = true;
    try {
      const doc = await get('/api/runs');
      if (!v.alive) return;
      notice.textContent = '';
      // the runs read further back stay below the newest
      const newest = new Set(doc.runs.map((r) => r.run_id));
      const low = doc.runs.length ? doc.runs[doc.runs.length - 1].run_id : Infinity;
      v.runs = [...doc.runs, ...v.runs.filter((r) => !newest.has(r.run_id) && r.run_id < low)];
      if (v.runs.length === doc.runs.length) v.before = doc.before;
      drawRuns();
      fill(live, doc.live.length
        ? [el('h2', {}, 'Live runner'), table(['Finished', 'Model', 'Status', 'Rows', 'Over', 'Message'],
          doc.live.map((r) => el('tr', { data: { model: r.model, status: r.status } },
            el('td', {}, r.finished_at || '–'), el('td', {}, model(r.model)), el('td', {}, badge(r.status)),
            el('td', { class: 'num' }, number(r.rows)), el('td', { class: 'num' }, duration(r.duration_ms)),
            el('td', { class: 'error-text' }, r.message || ''))))]
        : null);
      fill(alerts, doc.alerts.length
        ? table(['At', 'Alert', 'Model', 'Error', 'Delivery'], doc.alerts.map(alert), { id: 'alerts-table' })
        : el('p', { class: 'muted' }, 'No alert sent.'));
    } catch (err) {
      if (v.alive && err.status !== 401) notice.textContent = `The runs could not be read: ${err.message}`;
    } finally {
      v.loading = false;
    }
  }

  async function older() {
    try {
      const doc = await get(`/api/runs?before=${v.before}&live=0&alerts=0`);
      if (!v.alive) return;
      const have = new Set(v.runs.map((r) => r.run_id));
      v.runs.push(...doc.runs.filter((r) => !have.has(r.run_id)));
      v.before = doc.before;
      drawRuns();
    } catch (err) {
      if (v.alive) notice.textContent = `Older runs could not be read: ${err.message}`;
    }
  }

  const stop = feed.subscribe((name) => {
    if ((name === 'failure' || name === 'recovery') && !v.timer) {
      v.timer = setTimeout(() => {
        v.timer = null;
        load();
      }, AFTER_EVENT_MS);
    }
  });
  const every = setInterval(load, REFRESH_MS);
  load();
  return () => {
    v.alive = false;
    stop();
    clearInterval(every);
    clearTimeout(v.timer);
  };
}
