// The shell: signs the page in when the server wants it, draws the
// navigation, and mounts one page at a time from the address's #/PAGE.
// Each page is a module with mount(root, ctx) returning its unmount; the
// shell gives it ctx = {feed, session}: the tab's one event stream and how
// the page is authorized.

import { loadSession, onSignedOut, signOut } from './api.js';
import { el, fill } from './dom.js';
import { EventFeed } from './events.js';
import { showSignIn } from './signin.js';

// The pages, in the navigation's order. A page not built yet is mounted
// by planned.js, which says what it will show.
const PAGES = [
  { id: 'live', title: 'Live', load: () => import('./pages/live.js') },
  { id: 'dag', title: 'DAG', load: () => import('./pages/dag.js') },
  { id: 'models', title: 'Models', load: () => import('./pages/planned.js') },
  { id: 'windows', title: 'Windows', load: () => import('./pages/windows.js') },
  { id: 'query', title: 'Query', load: () => import('./pages/planned.js') },
  { id: 'runs', title: 'Runs and alerts', load: () => import('./pages/planned.js') },
];

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
const feed = new EventFeed();
let session = null;
let unmount = null;
let mountSeq = 0;

function pageOf(hash) {
  const id = (hash || '').replace(/^#\/?/, '').split('/')[0];
  return PAGES.find((p) => p.id === id) || PAGES[0];
}

function drawNav(current) {
  fill(nav, PAGES.map((p) =>
    el('a', { href: `#/${p.id}`, class: p === current ? 'current' : null,
      'aria-current': p === current ? 'page' : null }, p.title)));
}

function drawWho() {
  if (session?.auth === 'session') {
    fill(who, el('button', { type: 'button', class: 'link', id: 'signout', onclick: leave }, 'Sign out'));
  } else {
    fill(who, session?.auth === 'open' ? el('span', { class: 'muted', title: 'the server has no token' }, 'open') : null);
  }
}

async function route() {
  const page = pageOf(location.hash);
  const seq = ++mountSeq;
  drawNav(page);
  if (unmount) unmount();
  unmount = null;
  fill(main, el('p', { class: 'muted' }, 'Loading…'));
  const mod = await page.load();
  if (seq !== mountSeq) return;
  fill(main);
  unmount = mod.mount(main, { feed, session, page });
}

function stopApp() {
  feed.stop();
  if (unmount) unmount();
  unmount = null;
  window.removeEventListener('hashchange', route);
}

async function leave() {
  stopApp();
  await signOut().catch(() => {});
  start();
}

async function start() {
  // the page's module loads while the session is asked for
  pageOf(location.hash).load().catch(() => {});
  try {
    session = await loadSession();
  } catch (err) {
    if (err.status !== 401) {
      fill(main, el('p', { class: 'error' }, `The server did not answer: ${err.message}`));
      return;
    }
    session = null;
    fill(nav);
    fill(who);
    document.getElementById('project').textContent = '';
    showSignIn(main, start);
    return;
  }
  document.getElementById('project').textContent = session.project;
  document.title = session.project ? `${session.project} · sluice` : 'sluice';
  drawWho();
  feed.start();
  window.addEventListener('hashchange', route);
  route();
}

onSignedOut(() => {
  if (!session) return;
  session = null;
  stopApp();
  start();
});

start();
