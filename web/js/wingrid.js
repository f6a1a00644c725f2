// A model's windows drawn on a canvas as rows of time: each row a span
// (a day, a week, 4 weeks, 52 weeks), left to right, and each run of
// windows in one state (what GET /api/windows/NAME answers) one to three
// rectangles however many windows it holds: its part of its first row,
// the whole rows between, its part of its last, written into the canvas's
// pixels a status at a time. A canvas above it
// shows the range being picked, so that picking never redraws the grid.

import { el } from './dom.js';

const DAY = 86400;
const MONDAY = 4 * DAY; // 1970-01-05, a Monday: weeks start there
export const SPANS = [
  { secs: DAY, label: 'a day a row' },
  { secs: 7 * DAY, label: 'a week a row' },
  { secs: 28 * DAY, label: '4 weeks a row' },
  { secs: 364 * DAY, label: '52 weeks a row' },
  { secs: 3640 * DAY, label: '520 weeks a row' },
];
// the smallest row for each grain, so that a row holds several windows
const FLOOR = { '1h': DAY, '1d': 7 * DAY, '1w': 364 * DAY, '1mo': 364 * DAY };
export const STATUSES = ['applied', 'pending', 'blocked', 'failed'];
export const COLOURS = { applied: '#2da44e', pending: '#c4ccd4', blocked: '#d4a72c', failed: '#cf222e' };
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const GUTTER = 96; // the rows' dates
const AXIS = 18; // the offsets within a row
const MIN_ROW = 3;
const MAX_ROW = 22;
const MAX_HEIGHT = 4000;

// #rrggbb as an opaque pixel of an ImageData's Uint32Array (its bytes
// are r, g, b, a in memory: little-endian, as every browser's platform).
function pixel(hex) {
  const n = parseInt(hex.slice(1), 16);
  return (0xff000000 | ((n & 0xff) << 16) | (n & 0xff00) | ((n >> 16) & 0xff)) >>> 0;
}

// The windows' own arithmetic, in UTC seconds, as the server's grid has
// it (weeks start on Monday, months are calendar months).
export function floorTo(grain, t) {
  switch (grain) {
    case '1h': return Math.floor(t / 3600) * 3600;
    case '1d': return Math.floor(t / DAY) * DAY;
    case '1w': return MONDAY + Math.floor((t - MONDAY) / (7 * DAY)) * 7 * DAY;
    case '1mo': {
      const d = new Date(t * 1000);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
    }
    default: return Math.floor(t / 3600) * 3600;
  }
}

export function addTo(grain, t, k) {
  switch (grain) {
    case '1d': return t + k * DAY;
    case '1w': return t + k * 7 * DAY;
    case '1mo': {
      const d = new Date(t * 1000);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + k, 1) / 1000;
    }
    default: return t + k * 3600;
  }
}

// t as 'YYYY-MM-DD HH:MM' (UTC), or the date alone at midnight.
export function utc(t, dateOnly = false) {
  const s = new Date(t * 1000).toISOString();
  return dateOnly || s.slice(11, 16) === '00:00' ? s.slice(0, 10) : `${s.slice(0, 10)} ${s.slice(11, 16)}`;
}

export class WinGrid {
  // on: {hover(run index or -1, t, clientX, clientY), pick(since, until)}
  constructor(host, on) {
    this.host = host;
    this.on = on;
    this.canvas = el('canvas', { class: 'grid-layer', id: 'windows-canvas', role: 'img', 'aria-label': 'the windows' });
    this.overlay = el('canvas', { class: 'grid-layer grid-overlay', 'aria-hidden': 'true' });
    host.append(this.canvas, this.overlay);
    this.doc = null;
    this.n = 0;
    this.spanChoice = 0; // 0: auto, else seconds a row
    this.picking = null;
    this.listen();
  }

  // doc: the answer of GET /api/windows/NAME. Its runs become arrays
  // searched by time.
  setData(doc) {
    const runs = doc.runs;
    const n = runs.length;
    this.doc = doc;
    this.n = n;
    this.since = new Float64Array(n);
    this.until = new Float64Array(n);
    this.status = new Uint8Array(n);
    this.counts = new Float64Array(n);
    this.why = new Array(n);
    for (let i = 0; i < n; i++) {
      const r = runs[i];
      this.since[i] = r[0];
      this.until[i] = r[1];
      this.status[i] = STATUSES.indexOf(r[2]);
      this.counts[i] = r[3];
      this.why[i] = r[4];
    }
  }

  setSpan(secs) {
    this.spanChoice = secs;
  }

  // The rows: their span, first start, count and height.
  layout() {
    const { since: lo, until: hi, grain } = this.doc;
    const width = Math.max(200, this.host.clientWidth - GUTTER - 8);
    const room = Math.max(240, window.innerHeight - this.host.getBoundingClientRect().top - 24);
    const floor = FLOOR[grain] || DAY;
    // rows start at the day of the first window (a weekly grid's at its
    // Monday), so that a short range is one row
    const t0 = floorTo(grain === '1w' ? '1w' : '1d', lo);
    const rowsOf = (secs) => ({ secs, t0, rows: Math.max(1, Math.ceil((hi - t0) / secs)) });
    // the shortest rows (wider windows) whose canvas stays under
    // MAX_HEIGHT: a long grid scrolls rather than shrinking its windows
    // below a few pixels
    let pick = null;
    if (this.spanChoice) {
      pick = rowsOf(this.spanChoice);
    } else {
      for (const s of SPANS) {
        if (s.secs < floor) continue;
        pick = rowsOf(s.secs);
        if (pick.rows * MIN_ROW <= MAX_HEIGHT) break;
      }
    }
    const rowH = Math.max(MIN_ROW, Math.min(MAX_ROW, Math.floor(room / pick.rows)));
    return { ...pick, width, rowH, height: Math.min(AXIS + pick.rows * rowH, 32000) };
  }

  draw() {
    if (!this.doc || this.doc.since === null) return;
    const g = this.layout();
    this.g = g;
    const dpr = window.devicePixelRatio || 1;
    const cssW = GUTTER + g.width + 8;
    for (const c of [this.canvas, this.overlay]) {
      c.width = Math.round(cssW * dpr);
      c.height = Math.round(g.height * dpr);
      c.style.width = `${cssW}px`;
      c.style.height = `${g.height}px`;
    }
    this.host.style.height = `${g.height}px`;
    const ctx = this.canvas.getContext('2d');
    // the runs go into the pixels themselves: 100,000 of them as calls
    // to the canvas cost more than writing the pixels
    const img = new ImageData(this.canvas.width, this.canvas.height);
    const px = new Uint32Array(img.data.buffer);
    const paint = (colour) => (x, y, w, h) => {
      const W = img.width;
      const xs = Math.round(x * dpr);
      const xe = Math.max(xs + 1, Math.round((x + w) * dpr));
      const ye = Math.round((y + h) * dpr);
      for (let row = Math.round(y * dpr); row < ye; row++) px.fill(colour, row * W + xs, row * W + xe);
    };
    // the listed time, behind the runs: what is white was not asked for
    this.rects(paint(pixel('#f6f8fa')), this.doc.since, this.doc.until);
    // a status at a time, problems last: on top of what a thin run's
    // minimum width overlaps
    STATUSES.forEach((status, s) => {
      const fill = paint(pixel(COLOURS[status]));
      for (let i = 0; i < this.n; i++) if (this.status[i] === s) this.rects(fill, this.since[i], this.until[i]);
    });
    ctx.putImageData(img, 0, 0);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.drawLines(ctx, g);
    this.drawLabels(ctx, g);
  }

  // Calls rect(x, y, w, h) for the rectangles of [a, b): a part of a row,
  // whole rows, a part of a row; at least a pixel wide, so that one window
  // among a hundred thousand shows.
  rects(rect, a, b) {
    const { t0, secs, width, rowH } = this.g;
    const r0 = Math.floor((a - t0) / secs);
    let r1 = Math.floor((b - t0) / secs);
    if (t0 + r1 * secs === b) r1--;
    const xa = GUTTER + ((a - t0 - r0 * secs) / secs) * width;
    const xb = GUTTER + ((b - t0 - r1 * secs) / secs) * width;
    if (r0 === r1) {
      rect(xa, AXIS + r0 * rowH, Math.max(1, xb - xa), rowH);
      return;
    }
    rect(xa, AXIS + r0 * rowH, GUTTER + width - xa, rowH);
    if (r1 > r0 + 1) rect(GUTTER, AXIS + (r0 + 1) * rowH, width, (r1 - r0 - 1) * rowH);
    rect(GUTTER, AXIS + r1 * rowH, Math.max(1, xb - GUTTER), rowH);
  }

  // White lines between rows, and between windows where every row cuts
  // them in the same places, when there is room for them.
  drawLines(ctx, g) {
    const lines = new Path2D();
    if (g.rowH >= 6) {
      for (let r = 1; r < g.rows; r++) {
        lines.moveTo(GUTTER, AXIS + r * g.rowH + 0.5);
        lines.lineTo(GUTTER + g.width, AXIS + r * g.rowH + 0.5);
      }
    }
    const len = { '1h': 3600, '1d': DAY, '1w': 7 * DAY }[this.doc.grain];
    if (len && g.secs % len === 0 && floorTo(this.doc.grain, g.t0) === g.t0 && (g.width * len) / g.secs >= 10) {
      for (let k = 1; k < g.secs / len; k++) {
        const x = Math.round(GUTTER + (k * len * g.width) / g.secs) + 0.5;
        lines.moveTo(x, AXIS);
        lines.lineTo(x, g.height);
      }
    }
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 1;
    ctx.stroke(lines);
  }

  drawLabels(ctx, g) {
    ctx.fillStyle = '#656d76';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    const every = Math.max(1, Math.ceil(14 / g.rowH));
    for (let r = 0; r < g.rows; r += every) ctx.fillText(utc(g.t0 + r * g.secs, g.secs >= DAY), 4, AXIS + r * g.rowH + Math.min(g.rowH, 14) / 2);
    const ticks = g.secs === DAY ? ['00:00', '06:00', '12:00', '18:00']
      : g.secs === 7 * DAY ? WEEKDAYS.map((_, k) => WEEKDAYS[(new Date(g.t0 * 1000).getUTCDay() + k) % 7])
        : [0, 1, 2, 3].map((k) => `+${(k * g.secs) / DAY / 4}d`);
    ticks.forEach((text, k) => ctx.fillText(text, GUTTER + (k * g.width) / ticks.length + 2, AXIS / 2));
  }

  // The time at (x, y) of the canvas, or null outside the rows.
  timeAt(x, y) {
    const g = this.g;
    if (!g || x < GUTTER || x > GUTTER + g.width || y < AXIS || y >= g.height) return null;
    const r = Math.floor((y - AXIS) / g.rowH);
    return g.t0 + r * g.secs + ((x - GUTTER) / g.width) * g.secs;
  }

  // The run that holds t, or -1.
  runAt(t) {
    let lo = 0;
    let hi = this.n - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.since[mid] <= t) {
        at = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return at >= 0 && t < this.until[at] ? at : -1;
  }

  // The windows [a, b) picked so far, on the overlay; cleared with null.
  showPick(a, b) {
    const ctx = this.overlay.getContext('2d');
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.overlay.width, this.overlay.height);
    if (a === null) return;
    const path = new Path2D();
    this.rects((x, y, w, h) => path.rect(x, y, w, h), a, b);
    ctx.fillStyle = 'rgba(9, 105, 218, 0.35)';
    ctx.fill(path);
    ctx.strokeStyle = '#0969da';
    ctx.lineWidth = 1.5;
    ctx.stroke(path);
  }

  // The windows from the one at a to the one at b, whichever comes first.
  snap(a, b) {
    const grain = this.doc.grain || '1h';
    const lo = Math.min(a, b);
    const hi = Math.max(a, b);
    return [floorTo(grain, lo), addTo(grain, floorTo(grain, hi), 1)];
  }

  listen() {
    const point = (e) => {
      const r = this.overlay.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top];
    };
    this.overlay.addEventListener('pointermove', (e) => {
      const [x, y] = point(e);
      const t = this.timeAt(x, y);
      if (this.picking !== null && t !== null) {
        const [a, b] = this.snap(this.picking, t);
        this.showPick(a, b);
        return;
      }
      this.on.hover?.(t === null ? -1 : this.runAt(t), t, e.clientX, e.clientY);
    });
    this.overlay.addEventListener('pointerleave', () => this.on.hover?.(-1, null, 0, 0));
    this.overlay.addEventListener('pointerdown', (e) => {
      const [x, y] = point(e);
      const t = this.timeAt(x, y);
      if (t === null || !this.on.pick) return;
      this.picking = t;
      this.overlay.setPointerCapture(e.pointerId);
      const [a, b] = this.snap(t, t);
      this.showPick(a, b);
    });
    this.overlay.addEventListener('pointerup', (e) => {
      if (this.picking === null) return;
      const [x, y] = point(e);
      const t = this.timeAt(x, y) ?? this.picking;
      const [a, b] = this.snap(this.picking, t);
      this.picking = null;
      this.on.pick(a, b);
    });
  }
}
