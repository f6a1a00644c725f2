// The DAG page on the demo project (examples/shop): every source, seed
// and model painted where GET /api/dag put it, in the colour of its kind
// or live state; a search centres a node; a +model+ selection dims the
// rest; the buttons zoom; a node's colour follows the event stream (a
// paused model grey, a refresh's ring, a failing model red, the model
// that holds others back ringed red); a click opens the node's details
// with the link to its model. The screenshot of docs/ui.md is taken here.
import { dagBoxes, is, nodePixel, pixel, timeline } from '../canvas.mjs';

export const project = '../../examples/shop';
export const open = true;

const FILL = { source: '#ddf4ff', seed: '#fff8c5', model: '#ffffff', live: '#aceebb', paused: '#d0d7de', failing: '#cf222e' };

async function view(page) {
  const [scale, x, y] = (await page.getAttribute('#dag', 'data-view')).split(' ').map(Number);
  return { scale, x, y };
}

export default async function (t) {
  const { server, check, waitFor } = t;
  const page = await t.signedIn();
  await page.click('nav a[href="#/dag"]');
  await waitFor('the first paint', async () => (await timeline(page, 'sluice:dag:painted')).length === 1);
  const painted = (await timeline(page, 'sluice:dag:painted'))[0];
  check(painted.detail.nodes === 15, `painted ${JSON.stringify(painted.detail)}`);
  check((await page.textContent('#dag-count')) === '15 nodes, 12 edges', await page.textContent('#dag-count'));

  // every node painted, in its kind's colour (a live model's once the
  // status says it is live)
  await waitFor('the live models to be live', async () => is(await nodePixel(page, 'gold.live_revenue'), FILL.live));
  const boxes = await dagBoxes(page);
  for (const [name, b] of Object.entries(boxes)) {
    const px = await nodePixel(page, name);
    check(is(px, b.live ? FILL.live : FILL[b.kind]), `${name} (${b.kind}) is painted ${px}`);
  }

  // a search centres the node it finds and opens its details
  await page.fill('#dag-search', 'revenue_by');
  await page.press('#dag-search', 'Enter');
  await waitFor('the node found', async () => (await page.getAttribute('#dag', 'data-picked')) === 'gold.revenue_by_region');
  const found = (await dagBoxes(page))['gold.revenue_by_region'];
  const size = await page.evaluate(() => [document.getElementById('dag').clientWidth, document.getElementById('dag').clientHeight]);
  check(Math.abs(found.x + found.w / 2 - size[0] / 2) <= 1.5 && Math.abs(found.y + found.h / 2 - size[1] / 2) <= 1.5,
    `found at ${JSON.stringify(found)} in ${size}`);
  check((await page.getAttribute('#dag-open', 'href')) === '#/models/gold.revenue_by_region', 'the link to the model');
  await page.fill('#dag-search', 'nosuchnode');
  await page.press('#dag-search', 'Enter');
  check((await page.textContent('#notice')).startsWith('No node matches'), await page.textContent('#notice'));

  // the buttons zoom and fit
  const before = await view(page);
  await page.click('#dag-zoom-in');
  await waitFor('a zoom', async () => Math.abs((await view(page)).scale - before.scale * 1.25) < 1e-6);
  await page.click('#dag-fit');
  await waitFor('the whole graph', async () => (await view(page)).scale <= 1);

  // +silver.orders+: what it reads and what reads it; the rest dimmed
  await page.fill('#dag-select', '+silver.orders+');
  await page.press('#dag-select', 'Enter');
  await waitFor('a selection', async () => (await page.getAttribute('#dag', 'data-selected')) === '5');
  await t.sleep(100);
  for (const name of ['seeds.raw_orders', 'silver.orders', 'silver.paid_orders', 'gold.revenue_by_region', 'gold.daily_revenue']) {
    const px = await nodePixel(page, name);
    check(px[3] === 255, `${name}, selected, is ${px}`);
  }
  for (const name of ['checkouts', 'seeds.customers', 'silver.checkouts', 'snapshots.customer_history']) {
    const px = await nodePixel(page, name);
    check(px[3] < 80, `${name}, not selected, is ${px}`);
  }
  await page.fill('#dag-select', 'silver.ordrs+');
  await page.press('#dag-select', 'Enter');
  check((await page.textContent('#notice')).includes("did you mean 'silver.orders'"), await page.textContent('#notice'));
  await page.click('#dag-clear');
  await waitFor('no selection', async () => (await nodePixel(page, 'checkouts'))[3] === 255);

  // events: a pause greys a live model, its resume and a refresh bring it
  // back; every event's node is repainted and measured
  let r = await server.request('POST', '/api/live/models/gold.live_revenue/pause');
  check(r.status === 200, `pause: ${r.status} ${r.text}`);
  await waitFor('a paused node', async () => is(await nodePixel(page, 'gold.live_revenue'), FILL.paused));
  r = await server.request('POST', '/api/live/models/gold.live_revenue/resume');
  await waitFor('a live node again', async () => is(await nodePixel(page, 'gold.live_revenue'), FILL.live));
  const [seq] = await server.send('checkouts', [{ checkout_id: 1, customer_id: 1, amount: 5, region: 'Europe' }]);
  const advanced = await waitFor('the advance repainted', async () => (await timeline(page, 'sluice:dag:event'))
    .find((e) => e.detail.node === 'checkouts' && e.detail.seq === seq));
  await waitFor('the refreshes repainted', async () => {
    const after = (await timeline(page, 'sluice:dag:event')).filter((e) => e.start > advanced.start);
    return after.some((e) => e.detail.node === 'silver.checkouts') && after.some((e) => e.detail.node === 'gold.live_revenue');
  });

  // a checkout without its id fails silver.checkouts' check: red, and
  // ringed red once gold names it as what holds it back
  await server.send('checkouts', [{ customer_id: 2, amount: 12, region: 'Europe' }]);
  await waitFor('a failing node', async () => is(await nodePixel(page, 'silver.checkouts'), FILL.failing));
  await waitFor('the lagging node ringed', async () => {
    const b = (await dagBoxes(page))['silver.checkouts'];
    for (const dx of [1, 2, 3, 4]) if (is(await pixel(page, '#dag-canvas', b.x - dx, b.y + b.h / 2), '#cf222e', 40)) return true;
    return false;
  }, 20_000);

  // a click opens the node's details, whose link goes to the model
  const b = (await dagBoxes(page))['silver.checkouts'];
  const canvas = await page.$('#dag-canvas');
  const at = await canvas.boundingBox();
  await page.fill('#dag-search', '');
  await page.mouse.click(at.x + b.x + b.w / 2, at.y + b.y + b.h / 2);
  await waitFor('its details', async () => (await page.textContent('#dag-panel h2')) === 'silver.checkouts');
  check((await page.textContent('#dag-panel')).includes('failing'), await page.textContent('#dag-panel'));
  await t.screenshot(page, 'dag');
  await page.click('#dag-open');
  check(await page.evaluate(() => location.hash) === '#/models/silver.checkouts', 'the model page');
}
