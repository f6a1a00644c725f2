// A server without a token: the page needs no sign-in and drives the
// server, while a page of another origin in the same browser cannot, the
// only thing between an open loopback server and any web page elsewhere.
import { cell } from '../helpers.mjs';

export const open = true;

export default async function (t) {
  const { server, check, waitFor } = t;
  const page = await t.signedIn();
  check(!(await page.$('#signout')), 'an open server offers to sign out');
  check((await page.textContent('#who')).includes('open'), 'the page does not say the server is open');
  const info = await page.evaluate(() => fetch('/api/session').then((r) => r.json()));
  check(info.auth === 'open' && info.csrf === null && info.token === false, `session info: ${JSON.stringify(info)}`);

  // another origin: localhost is another site than 127.0.0.1
  const other = await t.page();
  await other.goto(server.url('/').replace('127.0.0.1', 'localhost'));
  const answer = await other.evaluate((u) => fetch(u, { method: 'POST' }).then((r) => r.status, (e) => String(e)),
    server.url('/api/live/models/silver.events/pause'));
  check(answer !== 200, `another origin's POST was answered ${answer}`);
  await other.evaluate((u) => fetch(u, { method: 'POST', mode: 'no-cors' }).catch(() => null),
    server.url('/api/live/stop'));
  await t.sleep(300);
  check((await server.request('GET', '/api/health')).json.live === true, 'another origin stopped the runner');
  const status = (await server.request('GET', '/api/live/status')).json;
  check(status.models.find((m) => m.model === 'silver.events').state !== 'paused', 'another origin paused a model');
  const probe = await server.request('POST', '/api/live/stop', { headers: { Origin: 'http://localhost:1' } });
  check(probe.status === 403, `a foreign Origin got ${probe.status}`);

  // the page itself may
  await page.click('#models tr[data-model="silver.events"] button:text-is("Pause")');
  await waitFor('silver to be paused', async () => (await cell(page, 'silver.events', 'state')) === 'paused');
}
