// The DAG drawn on two canvases: the edges below, the nodes above, both
// from the coordinates GET /api/dag computed (nothing is laid out here).
// A change of view (pan, zoom, a selection) redraws both, once a frame;
// a node whose state changed is repainted alone on the nodes canvas,
// where no other node overlaps it. Edges and nodes outside the view are
// skipped. The page decides colours' meaning through each node's `state`;
// this file only paints and says which node is under the pointer.

import { el } from './dom.js';

// Each node's look: [fill, stroke, text]. A live model's follows its
// state; the others' their kind.
export const STYLES = {
  source: ['#ddf4ff', '#218bff', '#0a3069'],
  seed: ['#fff8c5', '#bf8700', '#4d2d00'],
  model: ['#ffffff', '#8c959f', '#1f2328'],
  live: ['#aceebb', '#1a7f37', '#033a16'],
  behind: ['#ffd8a8', '#bc4c00', '#4d1d00'],
  waiting: ['#ffd8a8', '#bc4c00', '#4d1d00'],
  failing: ['#cf222e', '#82071e', '#ffffff'],
  paused: ['#d0d7de', '#6e7781', '#24292f'],
  new: ['#eaeef2', '#8c959f', '#24292f'],
  unknown: ['#eaf6ec', '#4ac26b', '#1f2328'],
};
const RING = { lagging: '#cf222e', selected: '#0969da', pulse: '#2da44e' };
const RING_REACH = 10; // how far the rings reach out of a box, in pixels
const LABELS_FROM = 0.42; // the scale from which names are written
const MIN_SCALE = 0.01;
const MAX_SCALE = 4;

export class DagView {
  // host: an element with a size; on: {click(i), hover(i, x, y), painted(full, nodes)}
  constructor(host, on) {
    this.host = host;
    this.on = on;
    this.edgesCanvas = el('canvas', { class: 'dag-layer', 'aria-hidden': 'true' });
    this.nodesCanvas = el('canvas', { class: 'dag-layer', id: 'dag-canvas', tabindex: '0',
      role: 'img', 'aria-label': 'the graph of sources, seeds and models' });
    host.append(this.edgesCanvas, this.nodesCanvas);
    this.view = { scale: 1, x: 0, y: 0 };
    this.nodes = [];
    this.layoutEdges = [];
    this.edges = null;
    this.size = { width: 0, height: 0 };
    this.dim = null;
    this.selected = -1;
    this.edgesDrawn = false;
    this.full = true;
    this.dirty = new Set();
    this.frame = 0;
    this.dpr = window.devicePixelRatio || 1;
    this.resizer = new ResizeObserver(() => this.resize());
    this.resizer.observe(host);
    this.listen();
  }

  destroy() {
    this.resizer.disconnect();
    cancelAnimationFrame(this.frame);
    this.frame = 0;
  }

  // doc: GET /api/dag's answer. Each node keeps the fields the page set
  // on it before (its state) when its name is still there.
  setGraph(doc) {
    const old = new Map(this.nodes.map((n) => [n.name, n]));
    this.nodes = doc.nodes.map((n) => ({
      name: n.name, kind: n.kind, materialized: n.materialized, live: n.live,
      x: n.x, y: n.y, w: n.width, h: n.height,
      state: old.get(n.name)?.state ?? null, lag: old.get(n.name)?.lag ?? null,
      lagging: false, pulse: 0,
    }));
    this.layoutEdges = doc.layout.edges;
    this.edges = null;
    this.size = { width: doc.layout.width, height: doc.layout.height };
    this.edgesDrawn = false;
    this.selected = -1;
    this.dim = null;
    this.redraw();
  }

  resize() {
    const { clientWidth: w, clientHeight: h } = this.host;
    this.dpr = window.devicePixelRatio || 1;
    for (const c of [this.edgesCanvas, this.nodesCanvas]) {
      c.width = Math.max(1, Math.round(w * this.dpr));
      c.height = Math.max(1, Math.round(h * this.dpr));
    }
    if (this.nodes.length) this.redraw();
  }

  // The whole drawing in view, at most at its own size.
  fit() {
    const { clientWidth: w, clientHeight: h } = this.host;
    const s = Math.min(1, w / Math.max(1, this.size.width), h / Math.max(1, this.size.height));
    this.view = { scale: Math.max(MIN_SCALE, s), x: Math.round((w - this.size.width * s) / 2), y: Math.round((h - this.size.height * s) / 2) };
    this.redraw();
  }

  // Zooms by factor around the point (cx, cy) of the canvas, its centre
  // when not given.
  zoom(factor, cx = this.host.clientWidth / 2, cy = this.host.clientHeight / 2) {
    const v = this.view;
    const s = Math.min(MAX_SCALE, Math.max(MIN_SCALE, v.scale * factor));
    this.view = { scale: s, x: cx - ((cx - v.x) * s) / v.scale, y: cy - ((cy - v.y) * s) / v.scale };
    this.redraw();
  }

  // Node i in the middle of the view, at a scale where its name reads.
  centre(i) {
    const n = this.nodes[i];
    const s = Math.max(this.view.scale, 1);
    this.view = { scale: s, x: Math.round(this.host.clientWidth / 2 - (n.x + n.w / 2) * s), y: Math.round(this.host.clientHeight / 2 - (n.y + n.h / 2) * s) };
    this.redraw();
  }

  // Where node i is on the page's canvas (CSS pixels from its top left).
  place(i) {
    const n = this.nodes[i];
    const { scale, x, y } = this.view;
    return { x: x + n.x * scale, y: y + n.y * scale, width: n.w * scale, height: n.h * scale };
  }

  setDim(set) {
    this.dim = set;
    this.redraw();
  }

  select(i) {
    const before = this.selected;
    this.selected = i;
    if (before >= 0) this.touch(before);
    if (i >= 0) this.touch(i);
  }

  redraw() {
    this.full = true;
    this.schedule();
  }

  // Node i changed: repainted alone at the next frame.
  touch(i) {
    this.dirty.add(i);
    this.schedule();
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.paint());
  }

  paint() {
    this.frame = 0;
    const full = this.full;
    const nodes = [...this.dirty];
    this.full = false;
    this.dirty.clear();
    if (full) {
      const { scale, x, y } = this.view;
      // where the graph is, for whoever reads the canvas (the browser tests)
      this.host.dataset.view = `${scale} ${x} ${y}`;
      // a new graph's nodes come first, its edges at the next frame: the
      // nodes are what a reader looks for
      if (this.edgesDrawn) {
        this.drawEdges();
      } else {
        this.context(this.edgesCanvas, true);
        this.full = true;
        this.schedule();
      }
      this.edgesDrawn = true;
      this.drawNodes();
    } else {
      const ctx = this.context(this.nodesCanvas);
      for (const i of nodes) this.repaint(ctx, i);
    }
    this.on.painted?.(full, nodes);
  }

  // Node i again, with its rings: the area they reach is cleared and
  // every node that reaches into it drawn again, clipped to it, so that
  // nothing outside it changes (at a small scale a ring reaches a
  // neighbour's).
  repaint(ctx, i) {
    const n = this.nodes[i];
    const m = RING_REACH / Math.min(1, this.view.scale);
    const x0 = n.x - m, y0 = n.y - m, x1 = n.x + n.w + m, y1 = n.y + n.h + m;
    ctx.save();
    ctx.beginPath();
    ctx.rect(x0, y0, x1 - x0, y1 - y0);
    ctx.clip();
    ctx.clearRect(x0, y0, x1 - x0, y1 - y0);
    this.nodes.forEach((o, k) => {
      if (o.x - m < x1 && o.x + o.w + m > x0 && o.y - m < y1 && o.y + o.h + m > y0) this.drawNode(ctx, k);
    });
    ctx.restore();
  }

  // A canvas's context, cleared when asked, drawing in the graph's
  // coordinates.
  context(canvas, clear = false) {
    const ctx = canvas.getContext('2d');
    const d = this.dpr;
    const { scale, x, y } = this.view;
    if (clear) {
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, canvas.width, canvas.height);
    }
    ctx.setTransform(d * scale, 0, 0, d * scale, d * x, d * y);
    return ctx;
  }

  // The part of the graph in view: [x0, y0, x1, y1].
  visible() {
    const { scale, x, y } = this.view;
    return [-x / scale, -y / scale, (this.host.clientWidth - x) / scale, (this.host.clientHeight - y) / scale];
  }

  // The edges as they are drawn, made at their first drawing (a frame
  // after the nodes'): each polyline without its straight bends, and the
  // box it lies in.
  prepareEdges() {
    const index = new Map(this.nodes.map((n, i) => [n.name, i]));
    this.edges = this.layoutEdges.map((e) => {
      const pts = straight(e.points);
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (let k = 0; k < pts.length; k += 2) {
        x0 = Math.min(x0, pts[k]); x1 = Math.max(x1, pts[k]);
        y0 = Math.min(y0, pts[k + 1]); y1 = Math.max(y1, pts[k + 1]);
      }
      return { from: index.get(e.from), to: index.get(e.to), pts, x0, y0, x1, y1 };
    });
  }

  drawEdges() {
    if (!this.edges) this.prepareEdges();
    const ctx = this.context(this.edgesCanvas, true);
    const [vx0, vy0, vx1, vy1] = this.visible();
    const dim = this.dim;
    const passes = dim ? [['#d8dee4', false], ['#57606a', true]] : [['#8c959f', null]];
    ctx.lineWidth = Math.max(1, this.view.scale) / this.view.scale;
    for (const [colour, inside] of passes) {
      ctx.beginPath();
      for (const e of this.edges) {
        if (e.x1 < vx0 || e.x0 > vx1 || e.y1 < vy0 || e.y0 > vy1) continue;
        if (inside !== null && (dim.has(e.from) && dim.has(e.to)) !== inside) continue;
        const p = e.pts;
        ctx.moveTo(p[0], p[1]);
        for (let k = 2; k < p.length; k += 2) ctx.lineTo(p[k], p[k + 1]);
      }
      ctx.strokeStyle = colour;
      ctx.stroke();
    }
  }

  styleOf(n) {
    return STYLES[n.live ? n.state || 'unknown' : n.kind] || STYLES.model;
  }

  // Every node in view: boxes batched by look (one path per look), then
  // names and rings.
  drawNodes() {
    const ctx = this.context(this.nodesCanvas, true);
    const [vx0, vy0, vx1, vy1] = this.visible();
    const shown = [];
    const batches = new Map();
    this.nodes.forEach((n, i) => {
      if (n.x + n.w < vx0 || n.x > vx1 || n.y + n.h < vy0 || n.y > vy1) return;
      shown.push(i);
      const key = `${this.styleOf(n).join()}|${this.dim && !this.dim.has(i) ? 'dim' : ''}`;
      if (!batches.has(key)) batches.set(key, []);
      batches.get(key).push(n);
    });
    ctx.lineWidth = 1 / Math.min(1, this.view.scale);
    for (const [key, list] of batches) {
      const [fill, stroke] = key.split('|')[0].split(',');
      ctx.globalAlpha = key.endsWith('dim') ? 0.18 : 1;
      ctx.beginPath();
      for (const n of list) ctx.rect(n.x, n.y, n.w, n.h);
      ctx.fillStyle = fill;
      ctx.fill();
      ctx.strokeStyle = stroke;
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
    for (const i of shown) this.drawMarks(ctx, i);
  }

  // One node whole: its box, name and rings.
  drawNode(ctx, i) {
    const n = this.nodes[i];
    const [fill, stroke] = this.styleOf(n);
    ctx.globalAlpha = this.dim && !this.dim.has(i) ? 0.18 : 1;
    ctx.lineWidth = 1 / Math.min(1, this.view.scale);
    ctx.fillStyle = fill;
    ctx.fillRect(n.x, n.y, n.w, n.h);
    ctx.strokeStyle = stroke;
    ctx.strokeRect(n.x, n.y, n.w, n.h);
    ctx.globalAlpha = 1;
    this.drawMarks(ctx, i);
  }

  // A node's name and state (when the scale lets them read) and its
  // rings: the lagging node, the selected one, one that just refreshed.
  drawMarks(ctx, i) {
    const n = this.nodes[i];
    const dimmed = this.dim && !this.dim.has(i);
    const s = this.view.scale;
    const rings = [];
    if (n.lagging) rings.push(RING.lagging);
    if (i === this.selected) rings.push(RING.selected);
    if (n.pulse > performance.now()) rings.push(RING.pulse);
    rings.forEach((colour, k) => {
      const pad = (2 + 3 * k) / Math.min(1, s);
      ctx.lineWidth = 2.5 / Math.min(1, s);
      ctx.strokeStyle = colour;
      ctx.strokeRect(n.x - pad, n.y - pad, n.w + 2 * pad, n.h + 2 * pad);
    });
    if (s < LABELS_FROM || dimmed) return;
    const text = this.styleOf(n)[2];
    ctx.fillStyle = text;
    ctx.textBaseline = 'middle';
    const chars = Math.max(3, Math.floor((n.w - 10) / 6.4));
    const line2 = n.live && n.state ? stateLine(n) : null;
    ctx.font = '600 11px system-ui, sans-serif';
    ctx.fillText(cut(n.name, chars), n.x + 5, n.y + (line2 ? n.h * 0.32 : n.h / 2));
    if (line2) {
      ctx.font = '10px system-ui, sans-serif';
      ctx.fillText(cut(line2, chars + 2), n.x + 5, n.y + n.h * 0.72);
    }
  }

  // The node under the point (x, y) of the canvas, or -1.
  hit(x, y) {
    const { scale, x: tx, y: ty } = this.view;
    const wx = (x - tx) / scale;
    const wy = (y - ty) / scale;
    for (let i = 0; i < this.nodes.length; i++) {
      const n = this.nodes[i];
      if (wx >= n.x && wx <= n.x + n.w && wy >= n.y && wy <= n.y + n.h) return i;
    }
    return -1;
  }

  // Dragging pans, the wheel zooms, a click (a press that did not move)
  // picks the node under it.
  listen() {
    const canvas = this.nodesCanvas;
    let press = null;
    const point = (e) => {
      const r = canvas.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top];
    };
    canvas.addEventListener('pointerdown', (e) => {
      const [x, y] = point(e);
      press = { x, y, vx: this.view.x, vy: this.view.y, moved: false };
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener('pointermove', (e) => {
      const [x, y] = point(e);
      if (!press) {
        const i = this.hit(x, y);
        canvas.classList.toggle('over-node', i >= 0);
        this.on.hover?.(i, x, y);
        return;
      }
      if (!press.moved && Math.hypot(x - press.x, y - press.y) < 4) return;
      press.moved = true;
      this.on.hover?.(-1, x, y);
      this.view = { ...this.view, x: press.vx + x - press.x, y: press.vy + y - press.y };
      this.redraw();
    });
    canvas.addEventListener('pointerup', (e) => {
      const [x, y] = point(e);
      if (press && !press.moved) this.on.click?.(this.hit(x, y));
      press = null;
    });
    canvas.addEventListener('pointerleave', () => {
      if (!press) this.on.hover?.(-1, 0, 0);
    });
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      const [x, y] = point(e);
      this.zoom(Math.exp(-e.deltaY * 0.0015), x, y);
    }, { passive: false });
  }
}

// A polyline's points as [x0, y0, x1, y1, ...] without the bends that
// lie on the straight line through their neighbours: a long edge lined up
// through many layers is drawn as one segment.
function straight(points) {
  const out = [points[0][0], points[0][1]];
  for (let k = 1; k < points.length; k++) {
    const [x, y] = points[k];
    const n = out.length;
    if (k < points.length - 1) {
      const [px, py] = [out[n - 2], out[n - 1]];
      const [nx, ny] = points[k + 1];
      if ((x - px) * (ny - y) === (y - py) * (nx - x)) continue;
    }
    out.push(x, y);
  }
  return out;
}

function stateLine(n) {
  return n.lag >= 1000 ? `${n.state} · ${lagText(n.lag)}` : n.state;
}

export function lagText(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60000)} min`;
}

function cut(text, chars) {
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
}
