// The Runs and alerts page: the run the case's project was built with,
// its models listed, and the alert a failing live model sends (its
// error, the delivery without a command) showing up with its run, while
// the page is open. The screenshot of docs/ui.md is taken here.
export default async function (t) {
  const { server, check, waitFor } = t;
  const page = await t.signedIn();
  await page.click('nav a[href="#/runs"]');
  await page.waitForSelector('#runs details.run');
  const first = await page.$eval('#runs details.run:last-of-type summary', (s) => s.textContent);
  check(first.includes('Run 1') && first.includes('batch'), `the first run reads ${first}`);
  await page.click('#runs details.run:last-of-type summary');
  await page.waitForSelector('#runs details.run:last-of-type tr[data-model="silver.events"]');
  check((await page.textContent('#alerts')).includes('No alert sent'), 'an alert before any failed');

  await server.send('events', [{ id: 5, kind: 'a', amount: -3 }]);
  const row = '#alerts-table tr[data-alert="live_model_failed"][data-model="silver.events"]';
  await waitFor('the alert', () => page.$(row), 20_000);
  const text = await page.textContent(row);
  check(text.includes('@assert amount >= 0: 1 failing row') && text.includes('no command'), `the alert reads ${text}`);
  await waitFor('the failed run', async () => (await page.$$eval('#runs details.run[data-status="failed"] tr[data-model="silver.events"]',
    (rows) => rows.length)) > 0);
  check(!(await page.$(`${row} img`)), 'markup in an alert');
  await t.screenshot(page, 'runs');
}
