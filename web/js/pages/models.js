// The Models page: every model and seed of the project (GET /api/models),
// found by any part of its name, path or materialization, each a link to
// its own page, #/models/NAME (model.js).

import { get } from '../api.js';
import { el, fill, table } from '../dom.js';
import { mountModel } from './model.js';

export function mount(root, ctx) {
  if (ctx.args.length) return mountModel(root, ctx, ctx.args[0]);
  let alive = true;
  const search = el('input', { type: 'search', id: 'model-search', placeholder: 'find a model',
    'aria-label': 'find a model', autocomplete: 'off', spellcheck: 'false' });
  const count = el('span', { class: 'muted', id: 'model-count' });
  const list = el('section', { id: 'model-list' }, el('p', { class: 'muted' }, 'Loading…'));
  root.append(el('div', { class: 'pagehead' }, el('h1', {}, 'Models'), count),
    el('div', { class: 'toolbar' }, search), list);

  let rows = [];
  function filter() {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const r of rows) {
      const hit = words.every((w) => r.key.includes(w));
      r.node.hidden = !hit;
      shown += hit;
    }
    count.textContent = shown === rows.length ? `${rows.length} models` : `${shown} of ${rows.length} models`;
  }

  get('/api/models').then((doc) => {
    if (!alive) return;
    rows = doc.models.map((m) => ({
      key: `${m.name} ${m.path} ${m.materialized}${m.live ? ' live' : ''}`.toLowerCase(),
      node: el('tr', { data: { model: m.name } },
        el('td', {}, el('a', { class: 'name', href: `#/models/${encodeURIComponent(m.name)}` }, m.name)),
        el('td', {}, m.materialized),
        el('td', {}, m.live ? el('span', { class: 'badge live' }, 'live') : ''),
        el('td', { class: 'muted' }, el('code', {}, m.path))),
    }));
    fill(list, rows.length
      ? table(['Model', 'Materialized', '', 'File'], rows.map((r) => r.node))
      : el('p', { class: 'muted' }, 'The project has no model.'));
    filter();
  }).catch((err) => {
    if (alive) fill(list, el('p', { class: 'error' }, `The models could not be read: ${err.message}`));
  });
  search.addEventListener('input', filter);
  search.focus();
  return () => {
    alive = false;
  };
}
