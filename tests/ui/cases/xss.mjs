// Markup in what a project says (a model's description, a source's column
// name, a model's column and what describes it) is shown as text on the
// Live page and on the model's page: no element is made of it and no
// script runs.
import { event } from '../helpers.mjs';

const MARKUP = '<img src=x onerror=window.__xss=1>';

export default async function (t) {
  const { server, check, waitFor } = t;
  const page = await t.signedIn();
  await server.send('events', [event(1)]);
  await waitFor('the source row', () => page.$('#sources tr[data-source="landing.events"]'));
  const desc = await page.textContent('#models tr[data-model="silver.events"] [data-field="description"]');
  check(desc === MARKUP, `the description reads ${JSON.stringify(desc)}`);
  const columns = await page.textContent('#sources tr[data-source="landing.events"] [data-field="columns"]');
  check(columns.includes(MARKUP), `the columns read ${JSON.stringify(columns)}`);
  check(await page.isVisible(`#models tr[data-model="silver.events"] [data-field="description"]`), 'the description is hidden');
  await t.sleep(300);
  check((await page.evaluate(() => window.__xss)) === undefined, 'a script from the data ran');
  check((await page.evaluate(() => document.querySelectorAll('main img').length)) === 0, 'an element was made of the data');

  await page.goto(server.url('/#/models/silver.events'));
  await page.waitForSelector('#columns-table');
  check((await page.textContent('#model-description')) === MARKUP, 'the description on the model page');
  const column = await page.$eval('#columns-table tbody tr:last-child', (r) => ({
    name: r.querySelector('[data-field="name"]').textContent,
    description: r.querySelector('[data-field="description"]').textContent,
  }));
  check(column.name === MARKUP && column.description === MARKUP, `the column reads ${JSON.stringify(column)}`);
  check((await page.textContent('#sql-text')).includes(MARKUP), 'the SQL on the model page');
  await t.sleep(300);
  check((await page.evaluate(() => window.__xss)) === undefined, 'a script from the model page ran');
  check((await page.evaluate(() => document.querySelectorAll('main img').length)) === 0, 'an element was made on the model page');
}
