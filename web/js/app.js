// The shell: signs the page in when the server wants it, draws the
// navigation, and mounts one page at a time from the address's
// #/PAGE/ARG...: each page is a module with mount(root, ctx) returning its
// unmount; the shell gives it ctx = {feed, session, page, args}: the tab's
// one event stream, how the page is authorized, the page and the rest of
// the address (#/models/silver.orders: ['silver.orders']). A static copy
// of the pages (sluice docs) has no server: the pages that need one say
// so, and the event stream is never opened.

import { loadSession, onSignedOut, signOut, staticSnapshot } from './api.js';
import { el, fill } from './dom.js';
import { EventFeed } from './events.js';
import { showSignIn } from './signin.js';

// The pages, in the navigation's order.
const PAGES = [
  { id: 'live', title: 'Live', load: () => import('./pages/live.js') },
  { id: 'dag', title: 'DAG', load: () => import('./pages/dag.js') },
  { id: 'models', title: 'Models', load: () => import('./pages/models.js') },
  { id: 'windows', title: 'Windows', load: () => import('./pages/windows.js') },
  { id: 'query', title: 'Query', load: () => import('./pages/query.js') },
  { id: 'runs', title: 'Runs and alerts', load: () => import('./pages/runs.js') },
];
// The pages a static copy cannot show: what they show is the server's now.
const NEEDS_SERVER = new Set(['live', 'windows', 'query', 'runs']);
const SNAPSHOT = staticSnapshot();

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
const feed = new EventFeed();
let session = null;
let unmount = null;
let mountSeq = 0;

function pageOf(hash) {
  const id = (hash || '').replace(/^#\/?/, '').split('/')[0];
  return PAGES.find((p) => p.id === id) || PAGES.find((p) => p.id === (SNAPSHOT ? 'models' : 'live'));
}

// What follows #/PAGE/ in the address, each part decoded.
function argsOf(hash) {
  return (hash || '').replace(/^#\/?/, '').split('/').slice(1).filter(Boolean).map((a) => {
    try {
      return decodeURIComponent(a);
    } catch {
      return a;
    }
  });
}

function needsServer(root, page) {
  root.appendChild(el('section', { class: 'needs-server', id: 'needs-server' },
    el('h1', {}, page.title),
    el('p', { class: 'muted' }, `The ${page.title} page needs a running server (sluice serve). `
      + `These pages are a copy of the project made by sluice docs at ${SNAPSHOT.generated_at}.`)));
  return () => {};
}

function drawNav(current) {
  fill(nav, PAGES.map((p) =>
    el('a', { href: `#/${p.id}`, class: p === current ? 'current' : null,
      'aria-current': p === current ? 'page' : null }, p.title)));
}

function drawWho() {
  if (SNAPSHOT) {
    fill(who, el('span', { class: 'muted', title: 'made by sluice docs' }, `snapshot ${SNAPSHOT.generated_at}`));
  } else if (session?.auth === 'session') {
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
  if (SNAPSHOT && NEEDS_SERVER.has(page.id)) {
    fill(main);
    unmount = needsServer(main, page);
    return;
  }
  const mod = await page.load();
  if (seq !== mountSeq) return;
  fill(main);
  unmount = mod.mount(main, { feed, session, page, args: argsOf(location.hash) });
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
  if (!SNAPSHOT) feed.start();
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
