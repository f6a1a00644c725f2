// The Live page follows a webhook stream: events sent one request each
// appear in the feed as they land, and the refresh counts of the live
// models go up without a reload.
import { advancedSeqs, event, refreshes } from '../helpers.mjs';

export default async function (t) {
  const { server, check, waitFor } = t;
  const page = await t.signedIn();
  await page.waitForSelector('#models tr[data-model="silver.events"]');
  const before = await refreshes(page, 'silver.events');
  const goldBefore = await refreshes(page, 'gold.totals');
  check(before >= 0 && goldBefore >= 0, 'the live models are not listed');
  await waitFor('the feed to open', () => page.evaluate(() => document.querySelector('[data-field="feed"]')?.textContent === 'open'));

  const seqs = [];
  for (let i = 1; i <= 6; i++) {
    seqs.push(...await server.send('events', [event(i, i * 2, i % 2 ? 'a' : 'b')]));
    await t.sleep(150);
  }
  await waitFor('every advance in the feed', async () => {
    const got = await advancedSeqs(page, 'landing.events');
    return seqs.every((s) => got.includes(s));
  });
  await waitFor('silver to refresh', async () => (await refreshes(page, 'silver.events')) > before);
  await waitFor('gold to refresh', async () => (await refreshes(page, 'gold.totals')) > goldBefore);
  await page.waitForSelector('#feed li[data-event="refresh"]');
  await waitFor('the source row', () => page.$('#sources tr[data-source="landing.events"]'));
  const watermark = await page.textContent('#sources tr[data-source="landing.events"] [data-field="watermark"]');
  await waitFor('the watermark to reach the last batch', async () =>
    Number((await page.textContent('#sources tr[data-source="landing.events"] [data-field="watermark"]')).replace(/,/g, '')) >= seqs.at(-1));
  check(watermark !== null, 'no watermark');
}
