// The demo project (examples/shop, which has no token) on the Live page:
// checkouts stream in and both live chains are listed, the PostgreSQL
// source whose connection string is not set is shown as not served, and a
// checkout without its id fails silver.checkouts' check, which holds
// gold.live_revenue back. The screenshots of docs/ui.md and the README are
// taken here.
import { cell, refreshes } from '../helpers.mjs';

export const project = '../../examples/shop';
export const open = true;

const REGIONS = ['Europe', 'Americas', 'Asia'];

export default async function (t) {
  const { server, check, waitFor } = t;
  const page = await t.signedIn();
  await page.waitForSelector('#models tr[data-model="gold.live_revenue"]');
  const before = await refreshes(page, 'gold.live_revenue');
  for (let i = 1; i <= 8; i++) {
    await server.send('checkouts', [{ checkout_id: i, customer_id: 1 + (i % 4), amount: 5 + i * 2.5, region: REGIONS[i % 3] }]);
    await t.sleep(120);
  }
  await waitFor('gold to follow', async () => (await refreshes(page, 'gold.live_revenue')) > before);
  await waitFor('the checkouts source', () => page.$('#sources tr[data-source="landing.checkouts"]'));
  const unserved = await page.textContent('#streams');
  check(unserved.includes('pg_products') && unserved.includes('SHOP_PG_DSN'), `not served: ${unserved}`);
  await t.sleep(500);
  await t.screenshot(page, 'live');

  await server.send('checkouts', [{ customer_id: 2, amount: 12, region: 'Europe' }]);
  await waitFor('silver to fail', async () => (await cell(page, 'silver.checkouts', 'state')) === 'failing');
  await waitFor('gold to name its cause', async () =>
    (await cell(page, 'gold.live_revenue', 'cause') || '').includes('silver.checkouts'));
  await t.sleep(300);
  await t.screenshot(page, 'live-failing');
}
