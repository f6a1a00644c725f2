// The DAG page: every source, seed and model where GET /api/dag drew it,
// each live model coloured by its state (GET /api/live/status, read when
// the page opens and every 5 s) and repainted in place as the event
// stream says what happened: an advance makes the live readers of its
// source behind, a refresh makes its model live (and its live readers
// behind), a failure failing, a pause paused. The drawing is fetched
// again only when its hash changed (If-None-Match every 10 s). Pan with
// the mouse, zoom with the wheel or the buttons, find a node by name,
// select with `sluice run -s` selectors (`+model+`: what it reads and
// what reads it; the rest dimmed), click a node for its details and the
// link to its model.
//
// For the benchmarks: the first frame with every node painted is marked
// `sluice:dag:painted` (the edges follow in the next frame:
// `sluice:dag:edges`), and each event's arrival to the frame that
// repainted its node is measured as `sluice:dag:event` (performance
// timeline; the seq of an advance in its detail).

import { get, getChanged } from '../api.js';
import { thousands } from '../counts.js';
import { afterFrame } from '../frame.js';
import { el, fill } from '../dom.js';
import { DagView, STYLES, lagText } from '../dagview.js';
import { graphIndex, nearest, select } from '../selector.js';

const STATUS_MS = 5000;
const DAG_MS = 10000;
const PULSE_MS = 600;
const LAGGING_MS = 1000; // the most lagging live model is red from this lag on
const MEASURES_KEPT = 20000;

// The drawing is asked for as soon as this module loads (the shell loads
// it while it asks for the session) when it is this page that opens: its
// answer is most of the wait for the first paint. Taken by the first
// mount; null when it failed (the mount asks again).
let early = location.hash.startsWith('#/dag') ? get('/api/dag').catch(() => null) : null;

export function mount(root, { feed }) {
  const v = { doc: null, index: null, etag: null, alive: true, status: null, temporal: new Set(),
    pending: new Map(), firstPaint: false, measures: 0, loadingStatus: false };
  const notice = el('p', { class: 'notice', id: 'notice', role: 'status' });
  const search = el('input', { type: 'search', id: 'dag-search', placeholder: 'find a node', 'aria-label': 'find a node',
    autocomplete: 'off', spellcheck: 'false' });
  const selector = el('input', { type: 'text', id: 'dag-select', placeholder: '+silver.orders+', 'aria-label': 'select',
    autocomplete: 'off', spellcheck: 'false' });
  const count = el('span', { class: 'muted', id: 'dag-count' });
  const host = el('div', { class: 'dag-canvas', id: 'dag' });
  const tip = el('div', { class: 'tip', id: 'dag-tip', role: 'tooltip', hidden: true });
  const panel = el('aside', { class: 'dag-panel', id: 'dag-panel', hidden: true });

  root.append(
    el('div', { class: 'pagehead' }, el('h1', {}, 'DAG'), count),
    el('div', { class: 'toolbar' },
      el('form', { class: 'inline', id: 'dag-find', onsubmit: (e) => { e.preventDefault(); find(); } },
        search, el('button', { type: 'submit' }, 'Find')),
      el('form', { class: 'inline', id: 'dag-selection', onsubmit: (e) => { e.preventDefault(); applySelection(); } },
        selector, el('button', { type: 'submit' }, 'Select'),
        el('button', { type: 'button', id: 'dag-clear', onclick: clearSelection }, 'Clear')),
      el('span', { class: 'zoom' },
        el('button', { type: 'button', id: 'dag-zoom-in', title: 'zoom in', onclick: () => view.zoom(1.25) }, '+'),
        el('button', { type: 'button', id: 'dag-zoom-out', title: 'zoom out', onclick: () => view.zoom(0.8) }, '−'),
        el('button', { type: 'button', id: 'dag-fit', title: 'the whole graph', onclick: () => view.fit() }, 'Fit'))),
    notice,
    el('div', { class: 'dag-wrap' }, host, tip, panel), legend());

  const view = new DagView(host, { click: pick, hover, painted });

  function say(text) {
    notice.textContent = text;
  }

  function nodeNamed(name) {
    return v.doc ? graph().byName.get(name.toLowerCase()) ?? -1 : -1;
  }

  // The graph as selectors and events walk it, made when first needed:
  // not on the way to the first paint.
  function graph() {
    if (!v.index) {
      const names = v.doc.nodes.map((n) => n.name);
      const at = new Map(names.map((n, i) => [n, i]));
      v.index = graphIndex(names, v.doc.layout.edges.map((e) => [at.get(e.from), at.get(e.to)]));
    }
    return v.index;
  }

  // A source's node from the table an advance names (landing.NAME, or an
  // adopted source's own table, which is its node's name too).
  function sourceNode(table) {
    const i = nodeNamed(table);
    if (i >= 0) return i;
    return table.startsWith('landing.') ? nodeNamed(table.slice(8)) : -1;
  }

  // Node i's state changed at t (performance.now() of the event that
  // said so): repainted at the next frame, measured from t.
  function touch(i, t, seq) {
    if (!v.pending.has(i)) v.pending.set(i, { t, seq });
    view.touch(i);
  }

  function setState(i, state, t, seq, lag) {
    const n = view.nodes[i];
    if (!n || !n.live) return;
    if (n.state === state && lag === undefined) return;
    n.state = state;
    if (lag !== undefined) n.lag = lag;
    touch(i, t, seq);
  }

  function pulse(i, t, seq) {
    view.nodes[i].pulse = t + PULSE_MS;
    touch(i, t, seq);
    setTimeout(() => v.alive && view.touch(i), PULSE_MS + 20);
  }

  // The live readers of node i have something new to take.
  function behindAfter(i, t, seq) {
    for (const j of graph().down[i]) {
      const s = view.nodes[j].state;
      if (!s || s === 'live' || s === 'new') setState(j, 'behind', t, seq);
    }
  }

  function onEvent(name, d) {
    if (!v.doc) return;
    const t = performance.now();
    if (name === 'hello') {
      if (d.resume !== 'continues') loadStatus();
      return;
    }
    if (name === 'advance') {
      const i = sourceNode(d.source || '');
      if (i < 0) return;
      pulse(i, t, d.seq);
      behindAfter(i, t, d.seq);
      return;
    }
    const i = nodeNamed(d.model || '');
    if (i < 0) return;
    switch (name) {
      case 'refresh':
        setState(i, view.nodes[i].state === 'paused' ? 'paused' : 'live', t, null, 0);
        pulse(i, t, null);
        behindAfter(i, t, null);
        break;
      case 'failure':
        setState(i, 'failing', t, null);
        break;
      case 'recovery':
      case 'resume':
        setState(i, 'live', t, null);
        break;
      case 'pause':
        setState(i, 'paused', t, null);
        break;
      default:
        break;
    }
  }

  // After each frame: what it painted is measured from its events'
  // arrival, in the task after the frame (once it is handed over).
  function painted(full, nodes) {
    const done = full ? [...v.pending.entries()] : nodes.filter((i) => v.pending.has(i)).map((i) => [i, v.pending.get(i)]);
    for (const [i] of done) v.pending.delete(i);
    const first = full && !v.firstPaint && view.nodes.length > 0;
    if (full && v.firstPaint && !v.edgesPaint && view.edgesDrawn) {
      v.edgesPaint = true;
      afterFrame(() => performance.mark('sluice:dag:edges'));
    }
    if (!done.length && !first) return;
    if (first) v.firstPaint = true;
    afterFrame(() => {
      if (first) performance.mark('sluice:dag:painted', { detail: { nodes: view.nodes.length } });
      const end = performance.now();
      for (const [i, { t, seq }] of done) {
        if (++v.measures > MEASURES_KEPT) {
          performance.clearMeasures('sluice:dag:event');
          v.measures = 1;
        }
        performance.measure('sluice:dag:event', { start: t, end, detail: { node: view.nodes[i]?.name, seq } });
      }
    });
  }

  function setDoc(doc) {
    v.doc = doc;
    v.etag = `"${doc.layout.hash}"`;
    v.index = null;
    view.setGraph(doc);
    count.textContent = `${thousands(doc.nodes.length)} nodes, ${thousands(doc.layout.edges.length)} edges`;
    if (v.status) applyStatus(v.status);
    if (selector.value.trim()) applySelection();
  }

  async function loadDag() {
    try {
      const first = early;
      early = null;
      const doc = v.doc ? await getChanged('/api/dag', v.etag) : (first && await first) || await get('/api/dag');
      if (!v.alive || !doc) return;
      const fresh = !v.doc;
      setDoc(doc);
      if (fresh) {
        view.fit();
        const wanted = decodeURIComponent((location.hash.split('/')[2] || ''));
        if (wanted) {
          search.value = wanted;
          find();
        }
      }
    } catch (err) {
      if (v.alive && err.status !== 401) say(`The graph could not be read: ${err.message}`);
    }
  }

  // Each live model's state and lag; the lagging node is the one the
  // others name as what holds them back, or, of those that nothing
  // upstream holds back, the one with the most lag when it is over a
  // second.
  function applyStatus(doc) {
    const t = performance.now();
    const blamed = new Set(doc.models.filter((m) => m.cause).map((m) => m.cause.upstream));
    let worst = null;
    for (const m of doc.models)
      if (!m.cause && m.lag_ms >= LAGGING_MS && (!worst || m.lag_ms > worst.lag_ms)) worst = m;
    if (worst) blamed.add(worst.model);
    view.nodes.forEach((n, i) => {
      const lagging = blamed.has(n.name);
      if (n.lagging !== lagging) {
        n.lagging = lagging;
        touch(i, t, null);
      }
    });
    for (const m of doc.models) {
      const i = nodeNamed(m.model);
      if (i >= 0) setState(i, m.state, t, null, m.lag_ms);
    }
    if (view.selected >= 0) showPanel(view.selected);
  }

  async function loadStatus() {
    if (v.loadingStatus) return;
    v.loadingStatus = true;
    try {
      const doc = await get('/api/live/status');
      if (!v.alive) return;
      v.status = doc;
      if (v.doc) applyStatus(doc);
    } catch (err) {
      if (v.alive && err.status !== 401) say(`The live status could not be read: ${err.message}`);
    } finally {
      v.loadingStatus = false;
    }
  }

  async function loadTemporal() {
    try {
      const doc = await get('/api/windows');
      if (v.alive) v.temporal = new Set(doc.models.map((m) => m.name));
    } catch {
      v.temporal = new Set();
    }
  }

  // The node a search names: its exact name, else the one whose name
  // starts so or holds it.
  function find() {
    const q = search.value.trim().toLowerCase();
    if (!q || !v.doc) return;
    const names = graph().names;
    let i = nodeNamed(q);
    if (i < 0) i = graph().bare.get(q) ?? -1;
    if (i < 0) i = names.findIndex((n) => n.toLowerCase().startsWith(q));
    if (i < 0) i = names.findIndex((n) => n.toLowerCase().includes(q));
    if (i < 0) {
      const near = nearest(q, names);
      say(`No node matches '${search.value.trim()}'${near ? ` (did you mean ${near}?)` : ''}.`);
      return;
    }
    say('');
    view.centre(i);
    pick(i);
  }

  function applySelection() {
    if (!v.doc) return;
    try {
      const picked = select(graph(), selector.value);
      view.setDim(picked);
      host.dataset.selected = String(picked.size);
      say('');
    } catch (err) {
      say(err.message);
    }
  }

  function clearSelection() {
    selector.value = '';
    delete host.dataset.selected;
    view.setDim(null);
    say('');
  }

  function pick(i) {
    view.select(i);
    if (i < 0) {
      panel.hidden = true;
      delete host.dataset.picked;
      return;
    }
    host.dataset.picked = view.nodes[i].name;
    showPanel(i);
  }

  function liveOf(name) {
    return v.status?.models.find((m) => m.model === name) || null;
  }

  function showPanel(i) {
    const n = view.nodes[i];
    const m = n.live ? liveOf(n.name) : null;
    const isModel = n.kind !== 'source';
    fill(panel,
      el('h2', {}, n.name),
      el('p', { class: 'muted' }, n.kind === 'model' ? `${n.materialized} model` : n.kind),
      n.live ? el('p', { data: { field: 'state' } }, el('span', { class: `badge ${n.state || 'new'}` }, n.state || 'unknown'),
        n.lag >= 1 ? ` lag ${lagText(n.lag)}` : '') : null,
      m?.last_error ? el('p', { class: 'error-text' }, m.last_error) : null,
      m?.cause ? el('p', { class: 'cause' }, `held back by ${m.cause.upstream} (${m.cause.upstream_state})`) : null,
      el('p', { class: 'links' },
        isModel ? el('a', { href: `#/models/${encodeURIComponent(n.name)}`, id: 'dag-open' }, 'Open the model') : null,
        v.temporal.has(n.name) ? el('a', { href: `#/windows/${encodeURIComponent(n.name)}` }, 'Windows') : null),
      el('p', {},
        el('button', { type: 'button', onclick: () => { selector.value = `+${n.name}+`; applySelection(); } }, `Select +${n.name}+`)));
    panel.hidden = false;
  }

  function hover(i, x, y) {
    if (i < 0) {
      tip.hidden = true;
      return;
    }
    const n = view.nodes[i];
    const m = n.live ? liveOf(n.name) : null;
    fill(tip,
      el('strong', {}, n.name),
      el('div', { class: 'muted' }, n.kind === 'model' ? `${n.materialized}${n.live ? ', live' : ''}` : n.kind),
      n.live ? el('div', {}, `${n.state || 'unknown'}${n.lag >= 1 ? `, lag ${lagText(n.lag)}` : ''}`) : null,
      m?.last_error ? el('div', { class: 'error-text' }, m.last_error.slice(0, 300)) : null);
    tip.style.left = `${x + 14}px`;
    tip.style.top = `${y + 14}px`;
    tip.hidden = false;
  }

  const stopEvents = feed.subscribe(onEvent);
  const everyStatus = setInterval(loadStatus, STATUS_MS);
  const everyDag = setInterval(loadDag, DAG_MS);
  loadDag();
  loadStatus();
  loadTemporal();

  return () => {
    v.alive = false;
    stopEvents();
    clearInterval(everyStatus);
    clearInterval(everyDag);
    view.destroy();
  };
}

function legend() {
  const item = (style, text, cls = '') => {
    const [f, s] = STYLES[style];
    const swatch = el('span', { class: `swatch ${cls}` });
    swatch.style.background = f;
    swatch.style.borderColor = s;
    return el('li', {}, swatch, text);
  };
  return el('ul', { class: 'legend', id: 'dag-legend', 'aria-label': 'legend' },
    item('source', 'source'), item('seed', 'seed'), item('model', 'model'),
    item('live', 'live model: live'), item('behind', 'behind or waiting'), item('failing', 'failing'),
    item('paused', 'paused'), item('new', 'not refreshed yet'),
    el('li', {}, el('span', { class: 'swatch ring-lagging' }), 'lagging: holds others back, or the most behind'),
    el('li', {}, el('span', { class: 'swatch ring-pulse' }), 'just refreshed or landed'));
}
