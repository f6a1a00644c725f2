// Selectors over the drawn graph, written as `sluice run -s` takes them:
// terms separated by commas or spaces, their union.
//   NAME, schema.name     that node (a bare name that one model has)
//   schema.*              every node of the schema
//   +NAME, NAME+, +NAME+  with what it reads / what reads it, transitively
//   2+NAME, NAME+1        as deep as the number says
// The closure is walked here, on the graph's edges: sources and seeds are
// nodes too, so `checkouts+` picks a source and everything fed by it.

// The graph as the selectors walk it: nodes by name, each one's inputs
// (up) and readers (down), as indices into names.
export function graphIndex(names, edges) {
  const byName = new Map();
  const bare = new Map();
  names.forEach((name, i) => {
    byName.set(name.toLowerCase(), i);
    const dot = name.lastIndexOf('.');
    if (dot >= 0) {
      const b = name.slice(dot + 1).toLowerCase();
      bare.set(b, bare.has(b) ? -1 : i);
    }
  });
  const up = names.map(() => []);
  const down = names.map(() => []);
  for (const [from, to] of edges) {
    up[to].push(from);
    down[from].push(to);
  }
  return { names, byName, bare, up, down };
}

const TERM = /^(\d*\+)?([^+]+?)(\+\d*)?$/;

// The nodes text picks, as a Set of indices; throws an Error that names
// the term it cannot read or the node it cannot find.
export function select(index, text) {
  const terms = text.split(/[\s,]+/).filter(Boolean);
  if (!terms.length) throw new Error('empty selector: name a node, e.g. +silver.orders+');
  const picked = new Set();
  for (const term of terms) {
    const m = TERM.exec(term);
    if (!m) throw new Error(`cannot read '${term}': write NAME, +NAME, NAME+ or +NAME+`);
    const [, before, name, after] = m;
    const starts = lookup(index, name);
    for (const i of starts) picked.add(i);
    if (before) walk(index.up, starts, depth(before), picked);
    if (after) walk(index.down, starts, depth(after), picked);
  }
  return picked;
}

function depth(plus) {
  const digits = plus.replace('+', '');
  return digits ? Number(digits) : Infinity;
}

function lookup(index, name) {
  const key = name.toLowerCase();
  if (key.endsWith('.*')) {
    const schema = key.slice(0, -1);
    const all = index.names.map((n, i) => (n.toLowerCase().startsWith(schema) ? i : -1)).filter((i) => i >= 0);
    if (all.length) return all;
    throw new Error(`no node in schema '${name.slice(0, -2)}'`);
  }
  if (index.byName.has(key)) return [index.byName.get(key)];
  const b = index.bare.get(key);
  if (b >= 0) return [b];
  if (b === -1) {
    const all = index.names.filter((n) => n.toLowerCase().endsWith(`.${key}`));
    throw new Error(`'${name}' is the name of ${all.length} nodes: write one of ${all.join(', ')}`);
  }
  const near = nearest(key, index.names);
  throw new Error(`no node '${name}'${near ? ` (did you mean '${near}'?)` : ''}`);
}

// Breadth first from starts along next, at most levels deep.
function walk(next, starts, levels, picked) {
  let frontier = starts;
  const seen = new Set(starts);
  for (let level = 0; level < levels && frontier.length; level++) {
    const more = [];
    for (const i of frontier) {
      for (const j of next[i]) {
        if (seen.has(j)) continue;
        seen.add(j);
        picked.add(j);
        more.push(j);
      }
    }
    frontier = more;
  }
}

// The name closest to key by edit distance, when close enough to be a
// slip (at most a third of its length).
export function nearest(key, names) {
  let best = null;
  let bestCost = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const name of names) {
    const lower = name.toLowerCase();
    const tail = lower.slice(lower.lastIndexOf('.') + 1);
    const cost = Math.min(distance(key, lower, bestCost), distance(key, tail, bestCost));
    if (cost < bestCost) {
      best = name;
      bestCost = cost;
    }
  }
  return best;
}

// Levenshtein distance, given up past limit.
function distance(a, b, limit) {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let low = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      low = Math.min(low, cur[j]);
    }
    if (low >= limit) return limit;
    prev = cur;
  }
  return prev[b.length];
}
