// Requests that change something: with the page's session they need its
// CSRF token; from a browser of another origin they are refused whatever
// they carry; a sender that is no browser (no Origin) keeps working with
// the token.
export default async function (t) {
  const { server, check, waitFor } = t;
  const page = await t.signedIn();
  const refresh = '/api/live/models/silver.events/refresh';

  const bare = await page.evaluate((p) => fetch(p, { method: 'POST' }).then((r) => r.status), refresh);
  check(bare === 403, `a POST without the CSRF header got ${bare}`);
  const wrong = await page.evaluate((p) => fetch(p, { method: 'POST', headers: { 'X-Sluice-CSRF': 'f'.repeat(64) } })
    .then((r) => r.status), refresh);
  check(wrong === 403, `a POST with a wrong CSRF token got ${wrong}`);
  const right = await page.evaluate(async (p) => {
    const { csrf } = await fetch('/api/session').then((r) => r.json());
    return fetch(p, { method: 'POST', headers: { 'X-Sluice-CSRF': csrf } }).then((r) => r.status);
  }, refresh);
  check(right === 200, `a POST with the CSRF token got ${right}`);

  // another origin: refused even with the token
  const foreign = await server.request('POST', refresh, { headers: { Origin: 'http://evil.example' } });
  check(foreign.status === 403 && foreign.json.error === 'forbidden', `a foreign Origin got ${foreign.status}`);
  const sameSite = await server.request('POST', refresh, { headers: { 'Sec-Fetch-Site': 'same-site' } });
  check(sameSite.status === 403, `Sec-Fetch-Site same-site got ${sameSite.status}`);
  const own = await server.request('POST', refresh, { headers: { Origin: server.url('').replace(/\/$/, '') } });
  check(own.status === 200, `the server's own Origin got ${own.status}`);
  const signin = await server.request('POST', '/auth/signin', { auth: false, headers: { Origin: 'http://evil.example' },
    body: { token: server.token } });
  check(signin.status === 403, `a sign-in from another origin got ${signin.status}`);
  const hook = await server.request('POST', '/api/ingest/webhook/events', { body: { id: 1, amount: 1 } });
  check(hook.status === 202, `a webhook without Origin got ${hook.status}`);
  const hookFromPage = await server.request('POST', '/api/ingest/webhook/events', {
    headers: { Origin: 'http://evil.example' }, body: { id: 2, amount: 1 } });
  check(hookFromPage.status === 403, `a webhook from another origin got ${hookFromPage.status}`);

  // a page of another origin (localhost is another site than 127.0.0.1)
  // driving the server from the browser changes nothing
  const other = await t.page();
  await other.goto(server.url('/').replace('127.0.0.1', 'localhost'));
  await other.evaluate((u) => fetch(u, { method: 'POST', mode: 'no-cors', credentials: 'include' }).catch(() => null),
    server.url('/api/live/models/silver.events/pause'));
  await t.sleep(300);
  const status = await server.request('GET', '/api/live/status');
  check(status.json.models.find((m) => m.model === 'silver.events').state !== 'paused', 'another origin paused a model');
  await waitFor('the page to be live still', () => page.$('#models tr[data-model="silver.events"]'));
}
