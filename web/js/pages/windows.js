// The Windows page: a temporal model's windows, or a source's coverage,
// as GET /api/windows/NAME answers them (runs of windows in one state),
// drawn on a grid of rows of time (wingrid.js); a run's status, windows
// and reason (what a blocked window waits for, a failed one's error) on
// hover; and a range rebuilt: picked by dragging across the grid (or
// typed), confirmed, and run as `sluice run -s MODEL --since T --until T
// --mode torch` (or bulldozer) would be, through POST /api/commands/run.
// #/windows lists what has windows; #/windows/NAME shows one.
//
// For the benchmarks: the first frame with the answer's runs drawn is
// marked `sluice:windows:drawn`, and measured from the request as
// `sluice:windows:load`.

import { get, post } from '../api.js';
import { thousands } from '../counts.js';
import { afterFrame } from '../frame.js';
import { el, fill } from '../dom.js';
import { COLOURS, SPANS, STATUSES, WinGrid, addTo, floorTo, utc } from '../wingrid.js';

const TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;
const MODES = {
  torch: 'forgets every window of the model first, then builds this range: the windows outside it are built again by the next run without a range',
  bulldozer: 'builds every window of this range again, applied or not; the windows outside it stay as they are',
};

export function mount(root) {
  const name = decodeURIComponent(location.hash.split('/')[2] || '');
  const v = { alive: true, list: null, doc: null };
  const picker = el('select', { id: 'windows-pick', 'aria-label': 'model or source',
    onchange: () => { location.hash = `#/windows/${encodeURIComponent(picker.value)}`; } });
  const notice = el('p', { class: 'notice', id: 'notice', role: 'status' });
  root.append(el('div', { class: 'pagehead' }, el('h1', {}, 'Windows'), picker), notice);

  function say(text) {
    notice.textContent = text;
  }

  async function loadList() {
    try {
      v.list = await get('/api/windows');
    } catch (err) {
      if (err.status !== 401) say(`What has windows could not be read: ${err.message}`);
      return;
    }
    if (!v.alive) return;
    const names = [...v.list.models.map((m) => m.name), ...v.list.sources.map((s) => s.name)];
    fill(picker, el('option', { value: '', disabled: true, selected: !names.includes(name) }, 'a model or source…'),
      names.map((n) => el('option', { value: n, selected: n === name }, n)));
    if (!name) showList();
  }

  function showList() {
    const { models, sources } = v.list;
    root.append(
      el('h2', {}, 'Temporal models'),
      models.length
        ? el('ul', { class: 'plain', id: 'windows-models' }, models.map((m) => el('li', {},
          el('a', { href: `#/windows/${encodeURIComponent(m.name)}` }, m.name),
          el('span', { class: 'muted' }, ` ${m.flexible ? 'flexible, ' : ''}${m.grain} from ${utc(m.start)}${m.end !== null ? ` to ${utc(m.end)}` : ''}`))))
        : el('p', { class: 'muted' }, 'The project has no temporal model.'),
      el('h2', {}, 'Sources with event time'),
      sources.length
        ? el('ul', { class: 'plain' }, sources.map((s) => el('li', {},
          el('a', { href: `#/windows/${encodeURIComponent(s.name)}` }, s.name))))
        : el('p', { class: 'muted' }, 'No source publishes coverage (event_time in sluice.yml).'));
  }

  loadList();
  if (!name) return () => { v.alive = false; };

  const since = el('input', { type: 'text', id: 'windows-since', placeholder: 'since (UTC)', size: 16, 'aria-label': 'since' });
  const until = el('input', { type: 'text', id: 'windows-until', placeholder: 'until (UTC)', size: 16, 'aria-label': 'until' });
  const rows = el('select', { id: 'windows-rows', 'aria-label': 'rows', onchange: () => { grid.setSpan(Number(rows.value)); draw(); } },
    el('option', { value: '0' }, 'rows: fit'), SPANS.map((s) => el('option', { value: String(s.secs) }, s.label)));
  const summary = el('p', { class: 'summary', id: 'windows-summary' });
  const more = el('p', { class: 'notice', id: 'windows-more' });
  const host = el('div', { class: 'grid-canvas', id: 'windows-grid' });
  const tip = el('div', { class: 'tip fixed', id: 'windows-tip', role: 'tooltip', hidden: true });
  const rebuild = rebuildForm();
  root.append(
    el('div', { class: 'toolbar' },
      el('form', { class: 'inline', onsubmit: (e) => { e.preventDefault(); load(); } },
        since, until, el('button', { type: 'submit' }, 'Show')), rows),
    summary, more,
    el('div', { class: 'grid-wrap' }, host, tip),
    rebuild.section);

  const grid = new WinGrid(host, { hover, pick: (a, b) => rebuild.pick(a, b) });

  function query(sinceText) {
    const q = new URLSearchParams();
    const s = sinceText ?? since.value.trim();
    if (s) q.set('since', s);
    if (until.value.trim()) q.set('until', until.value.trim());
    const text = q.toString();
    return `/api/windows/${encodeURIComponent(name)}${text ? `?${text}` : ''}`;
  }

  async function load(sinceText) {
    say('');
    performance.mark('sluice:windows:request');
    let doc;
    try {
      doc = await get(query(sinceText));
    } catch (err) {
      if (v.alive && err.status !== 401) say(err.detail || err.message);
      return;
    }
    if (!v.alive) return;
    v.doc = doc;
    grid.setData(doc);
    describe(doc);
    draw(true);
  }

  function draw(measure = false) {
    grid.draw();
    if (!measure) return;
    requestAnimationFrame(() => afterFrame(() => {
      performance.mark('sluice:windows:drawn', { detail: { runs: v.doc.runs.length, windows: v.doc.windows } });
      performance.measure('sluice:windows:load', 'sluice:windows:request', 'sluice:windows:drawn');
    }));
  }

  function describe(doc) {
    const counts = Object.fromEntries(STATUSES.map((s) => [s, 0]));
    for (const r of doc.runs) counts[r[2]] += r[3];
    const what = doc.kind === 'grid' ? `a grid of ${doc.grain} windows`
      : doc.kind === 'flexible' ? 'coverage islands (flexible)'
        : doc.kind === 'source' ? `the coverage of a source${doc.covered_until !== null ? `, up to ${utc(doc.covered_until)}` : ', nothing landed yet'}`
          : 'not temporal: its one existence row';
    fill(summary,
      el('strong', {}, doc.name), ` · ${what}`,
      doc.since !== null ? ` · ${utc(doc.since)} to ${utc(doc.until)}` : '',
      ` · ${thousands(doc.runs.length)} runs: `,
      STATUSES.filter((s) => counts[s] || s === 'applied').map((s) => {
        const key = el('span', { class: 'key' });
        key.style.background = COLOURS[s];
        return el('span', { class: 'count', data: { status: s } }, key, `${thousands(counts[s])} ${s} `);
      }));
    fill(more, doc.truncated
      ? ['Only the first ', thousands(doc.runs.length), ' runs are shown, up to ', utc(doc.next), '. ',
        el('button', { type: 'button', class: 'link', onclick: () => load(utc(doc.next)) }, `Show from ${utc(doc.next)}`)]
      : []);
    rebuild.section.hidden = !(doc.kind === 'grid' || doc.kind === 'flexible');
  }

  function hover(i, t, x, y) {
    if (i < 0) {
      tip.hidden = true;
      return;
    }
    const r = v.doc.runs[i];
    const windows = v.doc.kind === 'grid' ? `${thousands(r[3])} window${r[3] === 1 ? '' : 's'}` : null;
    fill(tip,
      el('strong', {}, `${utc(r[0])} → ${utc(r[1])}`),
      el('div', {}, el('span', { class: `badge ${r[2]}` }, r[2]), windows ? ` ${windows}` : ''),
      r[4] ? el('div', { class: 'why', id: 'windows-why' }, r[2] === 'blocked' ? `waits for ${r[4]}` : r[4]) : null);
    tip.style.left = `${x + 14}px`;
    tip.style.top = `${y + 14}px`;
    tip.hidden = false;
  }

  // Picking a range, saying what rebuilding it does, and doing it.
  function rebuildForm() {
    const from = el('input', { type: 'text', id: 'rebuild-since', size: 16, 'aria-label': 'rebuild since', placeholder: 'YYYY-MM-DD HH:MM' });
    const to = el('input', { type: 'text', id: 'rebuild-until', size: 16, 'aria-label': 'rebuild until', placeholder: 'YYYY-MM-DD HH:MM' });
    const mode = el('select', { id: 'rebuild-mode', 'aria-label': 'mode' }, Object.keys(MODES).map((m) => el('option', { value: m }, m)));
    const confirm = el('div', { class: 'confirm', id: 'rebuild-confirm', hidden: true });
    const output = el('pre', { class: 'output', id: 'rebuild-output', hidden: true });
    const section = el('section', { class: 'rebuild', id: 'rebuild', hidden: true },
      el('h2', {}, 'Rebuild a range'),
      el('p', { class: 'muted' }, 'Drag across the grid to pick windows, or type the range (UTC).'),
      el('form', { class: 'inline', onsubmit: (e) => { e.preventDefault(); ask(); } },
        'from ', from, ' to ', to, ' mode ', mode, el('button', { type: 'submit', id: 'rebuild-ask' }, 'Rebuild…')),
      confirm, output);

    function pick(a, b) {
      from.value = utc(a);
      to.value = utc(b);
      ask();
    }

    function ask() {
      const a = parse(from.value);
      const b = parse(to.value);
      if (a === null || b === null || a >= b) {
        fill(confirm, el('p', { class: 'error' }, 'Give the range as two UTC times, the first before the second (2026-11-02 or 2026-11-02 06:00).'));
        confirm.hidden = false;
        return;
      }
      const grain = v.doc.grain;
      const windows = grain ? count(grain, a, b) : null;
      fill(confirm,
        el('p', {}, 'Rebuild ', el('strong', {}, v.doc.name), ` from ${utc(a)} to ${utc(b)}`,
          windows !== null ? ` (${thousands(windows)} window${windows === 1 ? '' : 's'})` : '',
          ' with ', el('code', {}, `--mode ${mode.value}`), `? ${mode.value} ${MODES[mode.value]}.`),
        el('p', {},
          el('button', { type: 'button', id: 'rebuild-go', class: 'primary', onclick: () => run(a, b, mode.value) }, 'Rebuild'), ' ',
          el('button', { type: 'button', onclick: cancel }, 'Cancel')));
      confirm.hidden = false;
    }

    function cancel() {
      confirm.hidden = true;
      grid.showPick(null);
    }

    async function run(a, b, how) {
      const args = ['-s', v.doc.name, '--since', stamp(a), '--until', stamp(b), '--mode', how];
      fill(confirm, el('p', { class: 'muted' }, `Running sluice run ${args.join(' ')}…`));
      let res;
      try {
        res = await post('/api/commands/run', { args, now: null, env: null });
      } catch (err) {
        if (!v.alive) return;
        fill(confirm, el('p', { class: 'error' }, `The rebuild was not run: ${err.message}`));
        return;
      }
      if (!v.alive) return;
      confirm.hidden = true;
      grid.showPick(null);
      output.dataset.exit = String(res.exit);
      output.textContent = `$ sluice run ${args.join(' ')}\n${res.stdout}${res.stderr}[exit ${res.exit}]`;
      output.hidden = false;
      load();
    }

    return { section, pick };
  }

  let resizing = 0;
  const onResize = () => {
    cancelAnimationFrame(resizing);
    resizing = requestAnimationFrame(() => v.doc && draw());
  };
  window.addEventListener('resize', onResize);
  load();

  return () => {
    v.alive = false;
    window.removeEventListener('resize', onResize);
  };
}

// 'YYYY-MM-DD[ HH:MM[:SS]]' as UTC seconds, or null.
function parse(text) {
  const m = TIME.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0'] = m;
  const t = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  return Number.isNaN(t) ? null : t / 1000;
}

// t as the server reads a time: 'YYYY-MM-DD HH:MM:SS'.
function stamp(t) {
  return new Date(t * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

// The windows of grain whose start is in [a, b).
function count(grain, a, b) {
  const first = floorTo(grain, a) < a ? addTo(grain, floorTo(grain, a), 1) : a;
  if (grain !== '1mo') return Math.max(0, Math.ceil((b - first) / (addTo(grain, first, 1) - first)));
  let n = 0;
  for (let t = first; t < b; t = addTo(grain, t, 1)) n++;
  return n;
}
