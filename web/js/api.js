// The server's API as the page calls it: JSON in and out, the session
// cookie sent by the browser, and the session's CSRF token on every POST
// (the server refuses a POST made with a session without it). A 401 means
// the session is gone: whoever listens for 'signed-out' shows the sign-in.
//
// A static copy of the pages (`sluice docs`) has no server: snapshot.js,
// loaded before the pages, holds what they read (the drawing of the DAG,
// each model's document), and GETs of those are answered from it; any
// other call fails with 503 "needs a server".

const session = { auth: null, csrf: null, token: false, project: '' };
const listeners = new EventTarget();
const SNAPSHOT = globalThis.SLUICE_SNAPSHOT || null;

export class ApiError extends Error {
  constructor(status, error, detail) {
    super(detail ? `${error}: ${detail}` : error);
    this.status = status;
    this.error = error;
    this.detail = detail;
  }
}

export function onSignedOut(fn) {
  listeners.addEventListener('signed-out', fn);
}

export function currentSession() {
  return { ...session };
}

// The snapshot, when the pages are a static copy; else null.
export function staticSnapshot() {
  return SNAPSHOT;
}

function fromSnapshot(method, path) {
  const at = path.split('?')[0];
  const model = /^\/api\/models\/([^/]+)$/.exec(at);
  if (method === 'GET' && at === '/api/session') {
    return { auth: 'static', csrf: null, token: false, project: SNAPSHOT.project };
  }
  if (method === 'GET' && at === '/api/dag') return SNAPSHOT.dag;
  if (method === 'GET' && at === '/api/models') return { models: SNAPSHOT.dag.models };
  if (method === 'GET' && model) {
    const name = decodeURIComponent(model[1]);
    if (Object.hasOwn(SNAPSHOT.models, name)) return SNAPSHOT.models[name];
    throw new ApiError(404, 'unknown model', `no model '${name}' in the snapshot`);
  }
  throw new ApiError(503, 'needs a server',
    `these pages are a copy made by sluice docs (${SNAPSHOT.generated_at}); ${at} is answered by sluice serve`);
}

// A string body goes as the text it is (the SQL of POST /api/sql); any
// other as JSON.
async function call(method, path, body, extra = {}) {
  const headers = { Accept: 'application/json', ...extra };
  if (method !== 'GET' && session.csrf) headers['X-Sluice-CSRF'] = session.csrf;
  const text = typeof body === 'string';
  if (body !== undefined) headers['Content-Type'] = text ? 'text/plain; charset=utf-8' : 'application/json';
  if (SNAPSHOT) return fromSnapshot(method, path);
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    body: body === undefined || text ? body : JSON.stringify(body),
  });
  if (res.status === 304) return null;
  const answer = await res.text();
  let doc = null;
  try {
    doc = answer ? JSON.parse(answer) : null;
  } catch {
    doc = null;
  }
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/auth/')) {
      session.auth = null;
      session.csrf = null;
      listeners.dispatchEvent(new Event('signed-out'));
    }
    throw new ApiError(res.status, doc?.error || res.statusText, doc?.detail || null);
  }
  return doc;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body);
// A GET that sends If-None-Match: etag; null while the server's answer is
// still that one (304).
export const getChanged = (path, etag) => call('GET', path, undefined, { 'If-None-Match': etag });

// How this page is authorized: {auth: 'open' | 'session' | 'bearer', csrf,
// token, project}; throws an ApiError 401 when it must sign in.
export async function loadSession() {
  const doc = await call('GET', '/api/session');
  Object.assign(session, doc);
  return currentSession();
}

export async function signIn(token) {
  const doc = await call('POST', '/auth/signin', { token });
  session.csrf = doc.csrf;
  return loadSession();
}

export async function signOut() {
  try {
    await call('POST', '/auth/signout');
  } finally {
    session.auth = null;
    session.csrf = null;
  }
}
