// What the DAG and Windows cases read off a canvas: the pixels the page
// painted, and where the page says each node is.

// #rrggbb as [r, g, b].
export function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

// Whether pixel [r, g, b, a] is opaque and the colour hex, give or take.
export function is(pixel, hex, tolerance = 12) {
  const want = rgb(hex);
  return pixel[3] > 240 && want.every((c, k) => Math.abs(c - pixel[k]) <= tolerance);
}

// The pixel of canvas (a selector) at (x, y), in CSS pixels from its top
// left: [r, g, b, a].
export function pixel(page, selector, x, y) {
  return page.evaluate(([sel, px, py]) => {
    const c = document.querySelector(sel);
    const d = c.width / c.clientWidth;
    return [...c.getContext('2d').getImageData(Math.round(px * d), Math.round(py * d), 1, 1).data];
  }, [selector, x, y]);
}

// Every node of the DAG page as it is on its canvas: {name: {x, y, w, h,
// kind, live}} in CSS pixels of #dag-canvas, from GET /api/dag and the
// view the page says it shows.
export function dagBoxes(page) {
  return page.evaluate(async () => {
    const doc = await (await fetch('/api/dag', { credentials: 'same-origin' })).json();
    const [scale, x, y] = document.getElementById('dag').dataset.view.split(' ').map(Number);
    return Object.fromEntries(doc.nodes.map((n) => [n.name, {
      x: x + n.x * scale, y: y + n.y * scale, w: n.width * scale, h: n.height * scale, kind: n.kind, live: n.live,
    }]));
  });
}

// The pixel of node name's box, inside its bottom right corner, where no
// text is written.
export async function nodePixel(page, name) {
  const b = (await dagBoxes(page))[name];
  return pixel(page, '#dag-canvas', b.x + b.w - 4, b.y + b.h - 4);
}

// The first point of canvas (a selector) painted hex, scanning rows from
// the top (from the left when leftmost), in page coordinates, or null.
export function findColour(page, selector, hex, tolerance = 12) {
  return page.evaluate(([sel, want, tol]) => {
    const c = document.querySelector(sel);
    const d = c.width / c.clientWidth;
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const n = parseInt(want.slice(1), 16);
    const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] > 240 && Math.abs(data[i] - r) <= tol && Math.abs(data[i + 1] - g) <= tol && Math.abs(data[i + 2] - b) <= tol) {
        const px = (i / 4) % c.width;
        const py = Math.floor(i / 4 / c.width);
        const rect = c.getBoundingClientRect();
        return { x: rect.left + px / d, y: rect.top + py / d, cx: px / d, cy: py / d };
      }
    }
    return null;
  }, [selector, hex, tolerance]);
}

// The entries of a performance measure or mark the page made.
export function timeline(page, name) {
  return page.evaluate((n) => performance.getEntriesByName(n).map((e) => ({
    start: e.startTime, duration: e.duration, detail: e.detail,
  })), name);
}
