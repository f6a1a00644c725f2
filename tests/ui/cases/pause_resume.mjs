// Pause and resume from the page: a paused model takes in nothing while
// events land, and catches up when resumed; the runner stops and starts
// from its button.
import { cell, event, refreshes } from '../helpers.mjs';

export default async function (t) {
  const { server, check, waitFor } = t;
  const page = await t.signedIn();
  const row = '#models tr[data-model="silver.events"]';
  await page.waitForSelector(row);

  await page.click(`${row} button:text-is("Pause")`);
  await waitFor('silver to be paused', async () => (await cell(page, 'silver.events', 'state')) === 'paused');
  await page.waitForSelector('#feed li[data-event="pause"]');
  const paused = await refreshes(page, 'silver.events');
  await server.send('events', [event(1), event(2)]);
  await page.waitForSelector('#feed li[data-event="advance"]');
  await t.sleep(800);
  check((await refreshes(page, 'silver.events')) === paused, 'a paused model refreshed');
  check((await cell(page, 'silver.events', 'state')) === 'paused', 'the model is no longer paused');

  await page.click(`${row} button:text-is("Resume")`);
  await waitFor('silver to refresh after resume', async () => (await refreshes(page, 'silver.events')) > paused);
  await page.waitForSelector('#feed li[data-event="resume"]');
  await waitFor('silver to be live', async () => (await cell(page, 'silver.events', 'state')) === 'live');
  const status = await server.request('GET', '/api/live/status');
  check(status.json.models.find((m) => m.model === 'silver.events').state === 'live', 'the server says otherwise');

  await page.click('#runner-stop');
  await page.waitForSelector('#runner-start');
  check((await server.request('GET', '/api/health')).json.live === false, 'the runner still runs');
  await page.click('#runner-start');
  await page.waitForSelector('#runner-stop');
  check((await server.request('GET', '/api/health')).json.live === true, 'the runner did not start');
}
