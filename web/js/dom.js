// Building the page's DOM. Every text a server or a project gave (names,
// descriptions, columns, errors) goes in as a text node: nothing here sets
// innerHTML, so markup in data is shown as the characters it is.

// el('td', {class: 'num', data: {field: 'lag'}, onclick: fn}, child, ...):
// children are nodes, or strings and numbers that become text; null and
// false are skipped, arrays are flattened.
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'data') for (const [k, v] of Object.entries(value)) node.dataset[k] = String(v);
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else if (child instanceof Node) node.appendChild(child);
    else node.appendChild(document.createTextNode(String(child)));
  }
}

// Replaces what node holds with children.
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

// A table: a head of column titles, then rows (tr nodes).
export function table(heads, rows, attrs) {
  return el('table', attrs, el('thead', {}, el('tr', {}, heads.map((h) => el('th', {}, h)))), el('tbody', {}, rows));
}

// 1234 ms as "1.2 s", 75000 as "1m15s"; null as "–".
export function duration(ms) {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export function number(n, digits = 0) {
  if (n === null || n === undefined) return '–';
  return Number(n).toLocaleString('en-US', { maximumFractionDigits: digits });
}

export function clock(date = new Date()) {
  return date.toTimeString().slice(0, 8);
}
