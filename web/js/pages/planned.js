// The pages the navigation names that are not built yet: each says what
// it will show, so the shell's places are there for them.

import { el } from '../dom.js';

const WHAT = {
  models: 'every model: its materialization, its checks and its columns',
  query: 'read-only SQL against the warehouse (POST /api/sql)',
  runs: 'runs, their results and the alerts sent',
};

export function mount(root, ctx) {
  root.appendChild(el('section', { class: 'planned' },
    el('h1', {}, ctx.page.title),
    el('p', { class: 'muted' }, `Not built yet. It will show ${WHAT[ctx.page.id] || 'more'}.`)));
  return () => {};
}
