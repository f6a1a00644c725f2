// The Windows page (project_windows: an hourly model and a daily rollup
// gated on it): the list of what has windows; a temporal model's windows
// drawn, each status in its colour and counted; a blocked day's reason in
// the tooltip on hover; a range picked by dragging across the grid, then
// one typed, confirmed and rebuilt with --mode torch through
// POST /api/commands/run (signed in: the CSRF token goes with it), the
// grid drawn again from the new state. The screenshot of docs/ui.md is
// taken here.
import { findColour, is, pixel, timeline } from '../canvas.mjs';

export const project = 'project_windows';

const COLOUR = { applied: '#2da44e', pending: '#c4ccd4', blocked: '#d4a72c' };

async function drawn(t, page, count) {
  await t.waitFor(`the windows drawn (${count})`, async () => (await timeline(page, 'sluice:windows:drawn')).length >= count);
}

export default async function (t) {
  const { server, check, waitFor } = t;
  const page = await t.page();
  await page.goto(server.url('/#/windows'));
  await page.fill('#token', server.token);
  await page.click('#signin button[type=submit]');
  await page.waitForSelector('#windows-models a');
  const listed = await page.$$eval('#windows-models a', (as) => as.map((a) => a.textContent));
  check(listed.join() === 'silver.hourly,gold.daily', `listed ${listed}`);

  // an hourly grid: 36 windows applied, one rectangle per run
  await page.click('#windows-models a:text-is("silver.hourly")');
  await drawn(t, page, 1);
  const load = (await timeline(page, 'sluice:windows:load'))[0];
  check(load.duration > 0 && load.duration < 5000, `drawn in ${load.duration} ms`);
  const summary = await page.textContent('#windows-summary');
  check(summary.includes('a grid of 1h windows') && summary.includes('36 applied'), summary);
  check(await findColour(page, '#windows-canvas', COLOUR.applied), 'no applied window painted');

  // a day waits for hours silver.hourly never builds: its reason on hover
  await page.selectOption('#windows-pick', 'gold.daily');
  await drawn(t, page, 2);
  check((await page.textContent('#windows-summary')).includes('1 blocked'), await page.textContent('#windows-summary'));
  const blocked = await findColour(page, '#windows-canvas', COLOUR.blocked);
  check(blocked, 'no blocked window painted');
  await page.mouse.move(blocked.x + 3, blocked.y + 3);
  await page.waitForSelector('#windows-why');
  const why = await page.textContent('#windows-why');
  check(why === 'waits for silver.hourly (encapsulate)', `the tooltip says ${JSON.stringify(why)}`);
  check((await page.textContent('#windows-tip')).includes('2026-11-02 → 2026-11-03'), await page.textContent('#windows-tip'));
  await t.screenshot(page, 'windows');

  // a range picked by dragging from the first hour across three
  await page.selectOption('#windows-pick', 'silver.hourly');
  await drawn(t, page, 3);
  const first = await findColour(page, '#windows-canvas', COLOUR.applied);
  const cell = await page.evaluate(() => document.getElementById('windows-canvas').clientWidth);
  const step = (cell - 104) / 24;
  await page.mouse.move(first.x + 4, first.y + 4);
  await page.mouse.down();
  await page.mouse.move(first.x + 4 + step, first.y + 4);
  await page.mouse.move(first.x + 4 + 2 * step, first.y + 4);
  await page.mouse.up();
  await page.waitForSelector('#rebuild-confirm:not([hidden])');
  check(await page.inputValue('#rebuild-since') === '2026-11-01', await page.inputValue('#rebuild-since'));
  check(await page.inputValue('#rebuild-until') === '2026-11-01 03:00', await page.inputValue('#rebuild-until'));
  check((await page.textContent('#rebuild-confirm')).includes('(3 windows)'), await page.textContent('#rebuild-confirm'));
  await page.click('#rebuild-confirm button:text-is("Cancel")');

  // typed, confirmed, rebuilt: torch forgets every hour, builds six
  await page.fill('#rebuild-since', '2026-11-01 06:00');
  await page.fill('#rebuild-until', '2026-11-01 12:00');
  await page.selectOption('#rebuild-mode', 'torch');
  await page.click('#rebuild-ask');
  const confirm = await page.textContent('#rebuild-confirm');
  check(confirm.includes('(6 windows)') && confirm.includes('torch forgets every window'), confirm);
  await page.click('#rebuild-go');
  await page.waitForSelector('#rebuild-output[data-exit]');
  const output = await page.textContent('#rebuild-output');
  check((await page.getAttribute('#rebuild-output', 'data-exit')) === '0', output);
  check(output.includes('--mode torch') && output.includes('6 windows'), output);
  await drawn(t, page, 4);
  await waitFor('the grid drawn again', async () => {
    const s = await page.textContent('#windows-summary');
    return s.includes('6 applied') && s.includes('30 pending');
  });
  const pending = await findColour(page, '#windows-canvas', COLOUR.pending);
  check(pending && is(await pixel(page, '#windows-canvas', pending.cx + 2, pending.cy + 2), COLOUR.pending),
    'no pending window painted');
}
