// The Query page: one read-only query at a time against the warehouse
// (POST /api/sql, where the warehouse refuses anything that would write),
// its rows a page at a time (max_rows and offset: each page runs the query
// again), an error shown as the server's text. Ctrl+Enter (⌘+Enter) runs
// it; the last queries of the tab are kept in sessionStorage.

import { post } from '../api.js';
import { duration, el, fill, number, table } from '../dom.js';

const HISTORY_KEY = 'sluice.queries';
const HISTORY_MAX = 20;
const SIZES = [50, 100, 500, 1000];

function history() {
  try {
    const list = JSON.parse(sessionStorage.getItem(HISTORY_KEY) || '[]');
    return Array.isArray(list) ? list.filter((q) => typeof q === 'string') : [];
  } catch {
    return [];
  }
}

function remember(sql) {
  const list = [sql, ...history().filter((q) => q !== sql)].slice(0, HISTORY_MAX);
  try {
    sessionStorage.setItem(HISTORY_KEY, JSON.stringify(list));
  } catch {
    // a full storage keeps the list it had
  }
}

export function mount(root) {
  const v = { alive: true, sql: '', offset: 0, shown: 0, running: false };
  const editor = el('textarea', { id: 'sql', class: 'sql', rows: 8, spellcheck: 'false', 'aria-label': 'query',
    placeholder: 'SELECT * FROM _sluice.run_log ORDER BY finished_at DESC' });
  const size = el('select', { id: 'page-size', 'aria-label': 'rows a page' },
    SIZES.map((n) => el('option', { value: n, selected: n === 100 }, `${n} rows a page`)));
  const run = el('button', { type: 'button', id: 'run', class: 'primary', onclick: () => start() }, 'Run');
  const info = el('p', { class: 'muted', id: 'result-info' });
  const error = el('p', { class: 'error-text', id: 'query-error', role: 'alert' });
  const prev = el('button', { type: 'button', id: 'prev', disabled: true, onclick: () => page(v.offset - pageSize()) }, '← Previous');
  const next = el('button', { type: 'button', id: 'next', disabled: true, onclick: () => page(v.offset + Math.max(v.shown, 1)) }, 'Next →');
  const result = el('div', { id: 'result', class: 'result' });
  const recent = el('ul', { class: 'plain', id: 'history' });

  root.append(
    el('div', { class: 'pagehead' }, el('h1', {}, 'Query'),
      el('span', { class: 'muted' }, 'read-only: the warehouse refuses anything that writes')),
    el('div', { class: 'columns' },
      el('div', {}, editor,
        el('div', { class: 'toolbar' }, run, size, el('span', { class: 'muted' }, 'Ctrl+Enter runs it'), prev, next),
        error, info, result),
      el('aside', { class: 'activity' }, el('h2', {}, 'Recent queries'), recent)));

  function pageSize() {
    return Number(size.value);
  }

  function drawHistory() {
    const list = history();
    fill(recent, list.length ? list.map((q) => el('li', {},
      el('button', { type: 'button', class: 'link', title: q, onclick: () => { editor.value = q; editor.focus(); } },
        q.length > 120 ? `${q.slice(0, 120)}…` : q)))
      : el('li', { class: 'muted' }, 'None yet in this tab.'));
  }

  function start() {
    const sql = editor.value;
    if (!sql.trim() || v.running) return;
    v.sql = sql;
    remember(sql);
    drawHistory();
    page(0);
  }

  async function page(offset) {
    v.running = true;
    v.offset = Math.max(0, offset);
    run.disabled = prev.disabled = next.disabled = true;
    error.textContent = '';
    info.textContent = 'Running…';
    const t0 = performance.now();
    try {
      const doc = await post(`/api/sql?format=json&max_rows=${pageSize()}&offset=${v.offset}`, v.sql);
      if (!v.alive) return;
      const ms = performance.now() - t0;
      // an answer holds at most 2 MiB of text: a page may end early, and
      // the next one starts after the rows this one had
      v.shown = doc.rows.length;
      info.textContent = doc.rows.length
        ? `rows ${number(v.offset + 1)}–${number(v.offset + doc.rows.length)}${doc.truncated ? ', more follow' : ''} · ${duration(ms)}`
        : doc.truncated
          ? `row ${number(v.offset + 1)} alone is more text than an answer holds`
          : `no rows${v.offset ? ` from row ${number(v.offset + 1)} on` : ''} · ${duration(ms)}`;
      fill(result, table(doc.columns, doc.rows.map((r) => el('tr', {},
        r.map((val) => el('td', { class: val === null ? 'muted' : null }, val ?? 'NULL')))), { id: 'result-table' }));
      prev.disabled = v.offset === 0;
      next.disabled = !doc.truncated;
    } catch (err) {
      if (!v.alive) return;
      info.textContent = '';
      fill(result);
      error.textContent = err.detail ? `${err.error} (${err.status}): ${err.detail}` : err.message;
      prev.disabled = v.offset === 0;
    } finally {
      v.running = false;
      run.disabled = false;
    }
  }

  editor.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      start();
    }
  });
  size.addEventListener('change', () => {
    if (v.sql) page(0);
  });
  drawHistory();
  editor.value = history()[0] || '';
  editor.focus();
  return () => {
    v.alive = false;
  };
}
