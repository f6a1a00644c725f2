// A lagging model names the upstream that holds it back: an event that
// fails silver's check makes silver failing (its error and retry
// countdown on the page, with Retry now), and gold, which reads silver,
// names silver as its cause.
import { cell, event } from '../helpers.mjs';

export default async function (t) {
  const { server, check, waitFor } = t;
  const page = await t.signedIn();
  await server.send('events', [event(1, 5)]);
  await t.sleep(300);
  await server.send('events', [event(2, -5)]);
  await waitFor('silver to fail', async () => (await cell(page, 'silver.events', 'state')) === 'failing');
  const error = await cell(page, 'silver.events', 'error');
  check(error.includes('amount >= 0'), `silver's error reads ${JSON.stringify(error)}`);
  await page.waitForSelector('#feed li[data-event="failure"]');
  await waitFor('a retry countdown', async () => /\d/.test(await cell(page, 'silver.events', 'retry') || ''));
  await waitFor('gold to name its cause', async () => (await cell(page, 'gold.totals', 'cause') || '').includes('silver.events'));
  const cause = await cell(page, 'gold.totals', 'cause');
  check(cause.includes('failing'), `gold's cause reads ${JSON.stringify(cause)}`);
  const doc = (await server.request('GET', '/api/live/status')).json;
  const gold = doc.models.find((m) => m.model === 'gold.totals');
  check(gold.cause && gold.cause.upstream === 'silver.events' && gold.cause.path.join() === 'silver.events',
    `the status says ${JSON.stringify(gold.cause)}`);
  await page.click('#models tr[data-model="silver.events"] button:text-is("Retry now")');
  await t.sleep(300);
  check((await page.textContent('#notice')) === '', `retry now: ${await page.textContent('#notice')}`);
}
