// The demo project's model pages: the Models list finds a model by part
// of its name, and silver.orders' page shows its SQL and the SQL a build
// runs, its columns with the types its build made and what @column says
// of them, its checks with the
// warning's failing row, its build in the run history, and its inputs and
// readers as links to their own pages. The screenshot of docs/ui.md is
// taken here.
export const project = '../../examples/shop';
export const open = true;

export default async function (t) {
  const { check, waitFor } = t;
  const page = await t.signedIn();
  await page.click('nav a[href="#/models"]');
  await page.waitForSelector('#model-list tr[data-model="silver.orders"]');
  const all = await page.$$eval('#model-list tbody tr', (rows) => rows.length);
  check(all >= 10, `the Models page lists ${all} models`);
  await page.fill('#model-search', 'silver.orders incremental');
  await waitFor('the search to narrow the list', async () =>
    (await page.$$eval('#model-list tbody tr:not([hidden])', (rows) => rows.map((r) => r.dataset.model))).join() === 'silver.orders');
  await page.click('#model-list a:text-is("silver.orders")');
  await page.waitForSelector('#columns-table');
  check(page.url().endsWith('#/models/silver.orders'), `the address is ${page.url()}`);
  check((await page.textContent('#model-name')) === 'silver.orders', 'the page is not silver.orders\'');

  const sql = await page.textContent('#sql-text');
  check(sql.includes('@assert warn: amount < 100') && sql.includes('FROM seeds.raw_orders'), `the SQL reads ${sql}`);
  const compiled = await page.textContent('#sql-compiled');
  check(compiled.includes('-- incremental runs read:') && compiled.includes('"silver"."orders"'), `compiled: ${compiled}`);

  const types = await page.$$eval('#columns-table tbody tr', (rows) => rows.map((r) =>
    `${r.querySelector('[data-field="name"]').textContent} ${r.querySelector('[data-field="type"]').textContent}`));
  check(types.includes('order_id BIGINT') && types.includes('amount DECIMAL(10,2)'), `columns: ${types.join(', ')}`);
  const described = await page.textContent('#columns-table tr[data-column="amount"] [data-field="description"]');
  check(described === 'what the customer paid, in euros', `amount is described as ${described}`);

  const warned = await page.textContent('#checks-table tr[data-check="amount < 100"]');
  check(warned.includes('1 failing row') && warned.includes('1004'), `the warning reads ${warned}`);
  check((await page.textContent('#checks-table tr[data-check="unique(order_id)"] [data-field="result"]')) === 'held',
    'unique(order_id) did not hold');

  const runs = await page.$$eval('#runs-table tbody tr', (rows) => rows.map((r) => r.textContent));
  check(runs.length >= 1 && runs[0].includes('warn') && runs[0].includes('batch'), `builds: ${runs.join(' | ')}`);

  await t.screenshot(page, 'model');
  await page.click('#model-readers a:text-is("silver.paid_orders")');
  await waitFor('the reader\'s page', async () => (await page.textContent('#model-name').catch(() => '')) === 'silver.paid_orders');
  check((await page.textContent('#model-inputs')).includes('silver.orders'), 'the ephemeral does not read silver.orders');
}
