// sluice docs --out DIR, opened from the folder (file://) and from a
// plain web server: the Models page and a model's page read the snapshot,
// the DAG page has its drawing, the live pages say they need a server;
// no request goes to an API.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json' };

async function pages(t, page, base) {
  const { check, waitFor } = t;
  const apis = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/')) apis.push(r.url());
  });
  await page.goto(`${base}`);
  await page.waitForSelector('#model-list tr[data-model="silver.events"]');
  check((await page.textContent('#project')) === 'uitest', 'the project is not named');
  check((await page.textContent('#who')).startsWith('snapshot '), 'the page does not say it is a snapshot');
  await page.click('#model-list a:text-is("gold.totals")');
  await page.waitForSelector('#sql-compiled');
  check((await page.textContent('#sql-text')).includes('FROM silver.events'), 'gold.totals\' SQL');
  check((await page.textContent('#model-runs')).includes('with a server'), 'the builds of a snapshot');
  check((await page.textContent('#lineage-table')).includes('silver.events.kind'), 'the column lineage');
  const dag = await page.evaluate(() => window.SLUICE_SNAPSHOT.dag.nodes.map((n) => n.name));
  check(dag.includes('events') && dag.includes('gold.totals'), `the drawing holds ${dag}`);
  await page.click('nav a[href="#/dag"]');
  await waitFor('the DAG page', async () => !(await page.textContent('main')).includes('Loading'));
  check(!(await page.$('#needs-server')), 'the DAG page says it needs a server');
  for (const id of ['live', 'query', 'runs', 'windows']) {
    await page.click(`nav a[href="#/${id}"]`);
    await waitFor(`the ${id} page to say it needs a server`, async () =>
      (await page.textContent('#needs-server').catch(() => '')).includes('needs a running server'));
  }
  check(apis.length === 0, `requests to an API: ${apis.join(', ')}`);
}

export default async function (t) {
  const dir = path.join(t.project, 'site');
  const said = await t.sluice('docs', '--out', dir);
  t.check(said.includes('wrote 6 files'), `sluice docs said ${said}`);

  await pages(t, await t.page(), pathToFileURL(path.join(dir, 'index.html')).href);

  const web = http.createServer(async (req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
    try {
      const body = await readFile(path.join(dir, path.normalize(rel)));
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(rel)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((r) => web.listen(0, '127.0.0.1', r));
  try {
    await pages(t, await t.page(), `http://127.0.0.1:${web.address().port}/`);
  } finally {
    web.close();
  }
}
