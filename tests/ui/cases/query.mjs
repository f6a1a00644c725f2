// The Query page: a query's rows a page at a time (Next and Previous run
// it again from another offset), Ctrl+Enter to run, the warehouse's error
// as text, a write refused and nothing written, and the queries of the
// tab kept in sessionStorage across a reload. The screenshot of
// docs/ui.md is taken here.
export default async function (t) {
  const { server, check, waitFor } = t;
  const page = await t.signedIn();
  await page.click('nav a[href="#/query"]');
  await page.waitForSelector('#sql');
  const info = () => page.textContent('#result-info');
  const first = () => page.$eval('#result-table tbody tr td', (td) => td.textContent).catch(() => null);

  await page.fill('#sql', 'SELECT x FROM range(250) AS t(x) ORDER BY x');
  await page.selectOption('#page-size', '100');
  await page.press('#sql', 'Control+Enter');
  await waitFor('the first page', async () => (await info()).startsWith('rows 1–100, more follow'));
  check(await first() === '0', 'the first page does not start at 0');
  check(await page.isDisabled('#prev'), 'Previous is enabled on the first page');
  await page.click('#next');
  await waitFor('the second page', async () => (await info()).startsWith('rows 101–200, more follow'));
  check(await first() === '100', 'the second page does not start at 100');
  await page.click('#next');
  await waitFor('the last page', async () => (await info()).startsWith('rows 201–250 ·'));
  check(await page.isDisabled('#next'), 'Next is enabled on the last page');
  check((await page.$$('#result-table tbody tr')).length === 50, 'the last page does not hold 50 rows');
  await page.click('#prev');
  await waitFor('back a page', async () => (await info()).startsWith('rows 101–200'));
  await t.screenshot(page, 'query');

  await page.fill('#sql', 'SELECT * FROM no_such_table');
  await page.click('#run');
  await waitFor('the error', async () => (await page.textContent('#query-error')).includes('query failed (400)'));
  check((await page.textContent('#query-error')).includes('no_such_table'), 'the error does not name the table');
  check(!(await page.$('#result-table')), 'an error left rows on the page');

  await page.fill('#sql', 'DELETE FROM silver.events');
  await page.click('#run');
  await waitFor('the refusal', async () => (await page.textContent('#query-error')).startsWith('read only (403)'));
  await server.send('events', [{ id: 1, kind: 'a', amount: 1 }]);
  await waitFor('the event in silver', async () => (await server.request('POST', '/api/sql',
    { body: 'SELECT count(*) AS n FROM silver.events' })).json?.rows?.[0]?.[0] === '1');

  await page.reload();
  await page.waitForSelector('#history li button');
  const kept = await page.$$eval('#history li button', (b) => b.map((x) => x.title));
  check(kept[0] === 'DELETE FROM silver.events' && kept.includes('SELECT x FROM range(250) AS t(x) ORDER BY x'),
    `the tab kept ${JSON.stringify(kept)}`);
  check((await page.inputValue('#sql')) === 'DELETE FROM silver.events', 'the last query is not in the editor');
}
