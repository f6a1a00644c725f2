// Signing in: a wrong token is refused and makes no session, the right one
// makes an HttpOnly, SameSite=Strict session cookie the page's script
// cannot read, which authorizes the API; signing out ends the session on
// the server too. The app shell carries its security headers and is
// answered 304 for a copy that is still current.
export default async function (t) {
  const { server, check } = t;
  const page = await t.page();
  await page.goto(server.url('/'));
  await page.waitForSelector('#signin');
  await t.screenshot(page, 'signin');

  await page.fill('#token', 'not-the-token');
  await page.click('#signin button[type=submit]');
  await page.waitForFunction(() => document.querySelector('#signin-error').textContent.includes('not the server'));
  check((await t.context.cookies()).length === 0, 'a wrong token made a cookie');
  check((await page.evaluate(() => fetch('/api/live/status').then((r) => r.status))) === 401,
    'the API answered without a session');

  await page.fill('#token', server.token);
  await page.click('#signin button[type=submit]');
  await page.waitForSelector('#models table');
  const cookies = await t.context.cookies();
  const session = cookies.find((c) => c.name === 'sluice_session');
  check(session, 'no session cookie');
  check(session.httpOnly && session.sameSite === 'Strict' && session.path === '/',
    `cookie attributes: ${JSON.stringify(session)}`);
  check(/^[0-9a-f]{64}$/.test(session.value), 'the session id is not 32 random bytes in hex');
  check(!(await page.evaluate(() => document.cookie)).includes('sluice_session'), 'the script can read the cookie');
  check((await page.evaluate(() => fetch('/api/live/status').then((r) => r.status))) === 200,
    'the session does not authorize the API');
  const info = await page.evaluate(() => fetch('/api/session').then((r) => r.json()));
  check(info.auth === 'session' && /^[0-9a-f]{64}$/.test(info.csrf), `session info: ${JSON.stringify(info)}`);
  const cookie = `sluice_session=${session.value}`;
  check((await server.request('GET', '/api/live/status',
    { auth: false, headers: { Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' } })).status === 200,
    'the cookie does not authorize a request');
  // cookies know no ports: another program of this host that got it is no browser
  check((await server.request('GET', '/api/live/status', { auth: false, headers: { Cookie: cookie } })).status === 403,
    'the cookie authorizes a request no browser made');

  await page.click('#signout');
  await page.waitForSelector('#signin');
  check(!(await t.context.cookies()).some((c) => c.name === 'sluice_session' && c.value), 'the cookie outlived sign-out');
  check((await server.request('GET', '/api/live/status', { auth: false, headers: { Cookie: cookie } })).status === 401,
    'the session outlived sign-out on the server');

  // the shell: its headers, and a 304 for a current copy
  const shell = await server.request('GET', '/', { auth: false });
  check(shell.status === 200 && shell.headers.get('content-type').startsWith('text/html'), 'the shell');
  const csp = shell.headers.get('content-security-policy') || '';
  for (const part of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'",
    "base-uri 'none'", "form-action 'self'", "connect-src 'self'", "img-src 'self' data:"])
    check(csp.includes(part), `the CSP lacks ${part}: ${csp}`);
  check(shell.headers.get('x-content-type-options') === 'nosniff', 'no nosniff');
  check(shell.headers.get('referrer-policy') === 'no-referrer', 'no Referrer-Policy');
  const etag = shell.headers.get('etag');
  check(/^"[0-9a-f]{32}"$/.test(etag || ''), `ETag ${etag}`);
  const again = await server.request('GET', '/', { auth: false, headers: { 'If-None-Match': etag } });
  check(again.status === 304 && again.text === '', `a current copy got ${again.status}`);
  const js = await server.request('GET', '/ui/js/app.js', { auth: false });
  check(js.status === 200 && js.headers.get('content-type').startsWith('text/javascript'), 'app.js');
  check((await server.request('GET', '/ui/js/nothing.js', { auth: false })).status === 404, 'a missing asset');
  const big = await server.request('POST', '/auth/signin', { auth: false, body: JSON.stringify({ token: 'x'.repeat(5000) }) });
  check(big.status === 413, `an oversized sign-in got ${big.status}`);
}
