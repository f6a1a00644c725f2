// The Live page: every live model's state, lag, rate, refreshes, last
// error and retry countdown, with its controls; for a model held back, the
// upstream model that holds it (the status document's "cause"); the
// sources with their watermarks and columns; postgres_cdc slots, Kafka
// consumers, pollers and files sources as the server reports them; and the
// activity feed from the tab's event stream. The status is read again
// after events (at most every 250 ms) and every 2 s.

import { get, post } from '../api.js';
import { clock, duration, el, fill, number, table } from '../dom.js';

const FEED_MAX = 200;
const REFRESH_MS = 2000;
const AFTER_EVENT_MS = 250;
const NAME = /^[A-Za-z0-9_.-]+$/;

export function mount(root, { feed }) {
  const v = { status: null, live: null, fetchedAt: 0, loading: false, again: false, timer: null, alive: true };
  const runner = el('span', { class: 'runner', id: 'runner' });
  const connection = el('span', { class: 'connection', id: 'connection' });
  const notice = el('p', { class: 'notice', id: 'notice', role: 'status' });
  const models = el('section', { id: 'models' });
  const sources = el('section', { id: 'sources' });
  const streams = el('section', { id: 'streams' });
  const list = el('ol', { class: 'feed', id: 'feed' });

  root.append(
    el('div', { class: 'pagehead' }, el('h1', {}, 'Live'), runner, connection),
    notice,
    el('div', { class: 'columns' },
      el('div', { class: 'wide' }, models, sources, streams),
      el('aside', { class: 'activity' }, el('h2', {}, 'Activity'), list)));

  async function load() {
    if (v.loading) {
      v.again = true;
      return;
    }
    v.loading = true;
    try {
      const [status, health] = await Promise.all([get('/api/live/status'), get('/api/health')]);
      if (!v.alive) return;
      v.status = status;
      v.live = health.live;
      v.fetchedAt = Date.now();
      draw();
    } catch (err) {
      if (v.alive && err.status !== 401) say(`The status could not be read: ${err.message}`);
    } finally {
      v.loading = false;
      if (v.again && v.alive) {
        v.again = false;
        setTimeout(load, AFTER_EVENT_MS);
      }
    }
  }

  function say(text) {
    notice.textContent = text;
  }

  async function act(label, path) {
    say('');
    try {
      await post(path);
      load();
    } catch (err) {
      say(`${label}: ${err.message}`);
    }
  }

  function modelAction(name, action) {
    if (!NAME.test(name)) return;
    act(`${action} ${name}`, `/api/live/models/${name}/${action}`);
  }

  function draw() {
    drawRunner();
    drawModels();
    drawSources();
    drawStreams();
    tick();
  }

  function drawRunner() {
    const on = v.live === true;
    fill(runner, 'Runner ', el('strong', { data: { field: 'runner' } }, on ? 'on' : 'off'), ' ',
      el('button', { type: 'button', id: on ? 'runner-stop' : 'runner-start',
        onclick: () => act(on ? 'stop the runner' : 'start the runner', on ? '/api/live/stop' : '/api/live/start') },
      on ? 'Stop' : 'Start'));
  }

  function drawModels() {
    const rows = v.status.models.map((m) => {
      const failing = m.state === 'failing';
      const paused = m.state === 'paused';
      return el('tr', { data: { model: m.model, state: m.state } },
        el('td', {},
          el('div', { class: 'name' }, m.model),
          m.description ? el('div', { class: 'muted desc', data: { field: 'description' } }, m.description) : null,
          m.cause ? cause(m) : null),
        el('td', {}, el('span', { class: `badge ${m.state}`, data: { field: 'state' } }, m.state)),
        el('td', { class: 'num', data: { field: 'lag' } }, duration(m.lag_ms)),
        el('td', { class: 'num', data: { field: 'rate' } }, number(m.events_per_s, 1)),
        el('td', { data: { field: 'last-refresh' } }, m.last_refresh || '–'),
        el('td', { class: 'num', data: { field: 'refreshes' } }, number(m.refreshes)),
        el('td', { class: 'error-text', data: { field: 'error' } }, m.last_error || ''),
        el('td', { class: 'num', data: { field: 'retry', until: m.retry_in_ms > 0 ? v.fetchedAt + m.retry_in_ms : 0 } }),
        el('td', { class: 'actions' },
          paused
            ? el('button', { type: 'button', onclick: () => modelAction(m.model, 'resume') }, 'Resume')
            : el('button', { type: 'button', onclick: () => modelAction(m.model, 'pause') }, 'Pause'),
          failing ? el('button', { type: 'button', onclick: () => modelAction(m.model, 'resume') }, 'Retry now') : null,
          el('button', { type: 'button', onclick: () => modelAction(m.model, 'refresh') }, 'Refresh')));
    });
    fill(models, el('h2', {}, 'Live models'),
      rows.length
        ? table(['Model', 'State', 'Lag', 'Events/s', 'Last refresh', 'Refreshes', 'Last error', 'Retry in', ''], rows)
        : el('p', { class: 'muted' }, 'The project has no live model.'));
  }

  // The upstream model that holds m back, and the way up to it.
  function cause(m) {
    const c = m.cause;
    const lag = c.upstream_lag_ms > 0 ? `, ${duration(c.upstream_lag_ms)} behind` : '';
    const via = c.path.length > 1 ? el('span', { class: 'muted' }, ` via ${c.path.slice(0, -1).join(' ← ')}`) : null;
    return el('div', { class: 'cause', data: { field: 'cause' } },
      'held back by ', el('strong', {}, c.upstream), ` (${c.upstream_state}${lag})`, via);
  }

  function drawSources() {
    const rows = v.status.sources.map((s) => el('tr', { data: { source: s.source } },
      el('td', {}, el('div', { class: 'name' }, s.source), s.kind ? el('div', { class: 'muted' }, s.kind) : null),
      el('td', { class: 'num', data: { field: 'watermark' } },
        s.adopted ? (s.cursor ?? '–') : number(s.watermark)),
      el('td', { class: 'num', data: { field: 'rows' } }, number(s.rows)),
      el('td', {}, s.last_advance || '–'),
      el('td', { class: 'columns-list', data: { field: 'columns' } },
        (s.columns || []).map((c) => el('span', { class: 'column' }, el('code', {}, c.name), ' ', c.type))),
      el('td', { class: 'actions' },
        el('button', { type: 'button', title: 'stamp rows written into its landing table by something else',
          onclick: () => NAME.test(s.source) && act(`advance ${s.source}`, `/api/live/sources/${s.source}/advance`) },
        'Advance'))));
    fill(sources, el('h2', {}, 'Sources'),
      rows.length
        ? table(['Source', 'Watermark', 'Rows', 'Last advance', 'Columns', ''], rows)
        : el('p', { class: 'muted' }, 'No source has landed anything yet.'));
  }

  // The server's own threads, each table only when there are any.
  function drawStreams() {
    const parts = [];
    const doc = v.status;
    if (doc.cdc?.length) {
      parts.push(el('h2', {}, 'PostgreSQL slots'), table(
        ['Slot', 'Sources', 'State', 'Landed', 'Server', 'Lag', 'Transactions', 'Failures', 'Last error'],
        doc.cdc.map((s) => el('tr', { data: { slot: s.slot } },
          el('td', {}, s.slot), el('td', {}, s.sources), el('td', {}, badge(s.state)),
          el('td', {}, s.landed_lsn ?? '–'), el('td', {}, s.server_lsn ?? '–'),
          el('td', { class: 'num' }, `${number(s.lag_bytes)} B`, s.lag_ms != null ? ` · ${duration(s.lag_ms)}` : ''),
          el('td', { class: 'num' }, number(s.transactions)), el('td', { class: 'num' }, number(s.failures)),
          el('td', { class: 'error-text' }, s.failures ? (s.last_error || '') : '')))));
    }
    if (doc.kafka?.length) {
      parts.push(el('h2', {}, 'Kafka'), table(
        ['Source', 'Topics', 'State', 'Messages', 'Partitions (offsets)', 'Failures', 'Last error'],
        doc.kafka.map((k) => el('tr', { data: { source: k.source } },
          el('td', {}, k.source), el('td', {}, (k.topics || []).join(', ')), el('td', {}, badge(k.state)),
          el('td', { class: 'num' }, number(k.messages)),
          el('td', {}, (k.offsets || '–')),
          el('td', { class: 'num' }, number(k.failures)),
          el('td', { class: 'error-text' }, k.failures ? (k.last_error || '') : '')))));
    }
    if (doc.pollers?.length) {
      parts.push(el('h2', {}, 'Pollers'), table(['Source', 'State', 'Polls', 'Rows', 'Last ok', 'Next in', 'Last error'],
        doc.pollers.map((p) => el('tr', { data: { source: p.source } },
          el('td', {}, p.source), el('td', {}, badge(p.state)), el('td', { class: 'num' }, number(p.polls)),
          el('td', { class: 'num' }, number(p.rows)), el('td', {}, p.last_ok || '–'),
          el('td', { class: 'num' }, duration(p.next_attempt_in_ms)),
          el('td', { class: 'error-text' }, p.failures ? (p.last_error || '') : '')))));
    }
    if (doc.files?.length) {
      parts.push(el('h2', {}, 'Files'), table(['Source', 'Folder', 'State', 'Files', 'Rows', 'Last file', 'Last error'],
        doc.files.map((f) => el('tr', { data: { source: f.source } },
          el('td', {}, f.source), el('td', {}, f.path), el('td', {}, badge(f.state)),
          el('td', { class: 'num' }, number(f.files)), el('td', { class: 'num' }, number(f.rows)),
          el('td', {}, f.last_file || '–'), el('td', { class: 'error-text' }, f.failures ? (f.last_error || '') : '')))));
    }
    if (doc.unavailable?.length) {
      parts.push(el('h2', {}, 'Not served'), table(['Source', 'Why'],
        doc.unavailable.map((u) => el('tr', {}, el('td', {}, u.source), el('td', { class: 'error-text' }, u.error)))));
    }
    fill(streams, parts);
  }

  // The retry countdowns, every second between status reads.
  function tick() {
    const now = Date.now();
    for (const cell of models.querySelectorAll('[data-field="retry"]')) {
      const until = Number(cell.dataset.until);
      cell.textContent = until > now ? duration(until - now) : '';
    }
  }

  function summary(name, d) {
    switch (name) {
      case 'advance': return `${d.source}: ${count(d.rows, 'row')}` + (d.cursor ? ` to ${d.cursor}` : ` (seq ${d.seq})`);
      case 'landed': return `slot ${d.slot}: ${count(d.transactions, 'transaction')}, ${count(d.changes, 'change')}`;
      case 'refresh': return `${d.model}: ${count(d.rows, 'row')}`;
      case 'failure': return `${d.model} failed: ${d.error}`;
      case 'recovery': return `${d.model} recovered`;
      case 'pause': return `${d.model} paused`;
      case 'resume': return `${d.model} resumed`;
      default: return JSON.stringify(d);
    }
  }

  // An event as a line of the feed, newest on top.
  function show(name, data, id) {
    if (name === 'hello') {
      if (data.resume === 'gap' || data.resume === 'restarted') {
        list.prepend(el('li', { class: 'marker', data: { resume: data.resume } }, clock(), ' ',
          data.resume === 'gap'
            ? 'Reconnected: some events were too old for the server to send again.'
            : 'The server restarted: events since its start follow.'));
      }
    } else {
      list.prepend(el('li', { data: { id, event: name } },
        el('span', { class: 'when' }, clock()), ' ',
        el('span', { class: `kind ${name}` }, name), ' ',
        el('span', { class: 'what' }, summary(name, data)), ' ',
        el('span', { class: 'id muted' }, id)));
      while (list.children.length > FEED_MAX) list.lastChild.remove();
    }
  }

  function onEvent(name, data, id) {
    show(name, data, id);
    if (name !== 'hello' || data.resume !== 'continues') soon();
  }

  // One status read for a burst of events.
  function soon() {
    if (v.timer) return;
    v.timer = setTimeout(() => {
      v.timer = null;
      load();
    }, AFTER_EVENT_MS);
  }

  for (const e of feed.recent()) show(e.name, e.data, e.id);
  const stopEvents = feed.subscribe(onEvent);
  const stopState = feed.onState((state) => {
    fill(connection, el('span', { class: `dot ${state}` }), ' feed ', el('span', { data: { field: 'feed' } }, state));
  });
  const every = setInterval(load, REFRESH_MS);
  const ticker = setInterval(tick, 1000);
  load();

  return () => {
    v.alive = false;
    stopEvents();
    stopState();
    clearInterval(every);
    clearInterval(ticker);
    clearTimeout(v.timer);
  };
}

function count(n, noun) {
  return `${number(n)} ${noun}${n === 1 ? '' : 's'}`;
}

function badge(state) {
  return el('span', { class: `badge ${state || ''}` }, state || '–');
}
