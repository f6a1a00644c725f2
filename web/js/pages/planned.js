// The pages the navigation names that are not built yet: each says what
// it will show, so the shell's places are there for them.

import { el } from '../dom.js';

const WHAT = {
  dag: 'the graph of models, each live model with its lag or state on its node',
  windows: 'the windows of temporal models: applied, blocked and why',
};

export function mount(root, ctx) {
  root.appendChild(el('section', { class: 'planned' },
    el('h1', {}, ctx.page.title),
    el('p', { class: 'muted' }, `Not built yet. It will show ${WHAT[ctx.page.id] || 'more'}.`)));
  return () => {};
}
