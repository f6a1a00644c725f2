// The server's API as the page calls it: JSON in and out, the session
// cookie sent by the browser, and the session's CSRF token on every POST
// (the server refuses a POST made with a session without it). A 401 means
// the session is gone: whoever listens for 'signed-out' shows the sign-in.

const session = { auth: null, csrf: null, token: false, project: '' };
const listeners = new EventTarget();

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

async function call(method, path, body, extra = {}) {
  const headers = { Accept: 'application/json', ...extra };
  if (method !== 'GET' && session.csrf) headers['X-Sluice-CSRF'] = session.csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 304) return null;
  const text = await res.text();
  let doc = null;
  try {
    doc = text ? JSON.parse(text) : null;
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
