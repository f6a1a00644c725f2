// A feed that loses its connection misses nothing: events that land while
// the page cannot reach the server are in the feed once it can, each id
// once; so are the events of a server that restarted meanwhile (once the
// page has signed in again: sessions do not outlive the server). The page
// reaches the server through a relay that the case cuts.
import { advancedSeqs, event, feedEntries, relay } from '../helpers.mjs';

export default async function (t) {
  const { server, check, waitFor } = t;
  const net = await relay(server.port);
  try {
    const page = await t.page();
    await page.goto(net.url('/'));
    await page.fill('#token', server.token);
    await page.click('#signin button[type=submit]');
    await page.waitForSelector('#models table');
    const feedIs = (want) => page.evaluate((w) => document.querySelector('[data-field="feed"]')?.textContent === w, want);
    const has = async (seqs) => {
      const got = await advancedSeqs(page, 'landing.events');
      return seqs.every((s) => got.includes(s));
    };
    await waitFor('the feed to open', () => feedIs('open'));
    const first = await server.send('events', [event(1), event(2)]);
    await waitFor('the first events', () => has(first));

    // the same server: the connection drops, events land, it comes back
    net.cut();
    await waitFor('the feed to notice', async () => !(await feedIs('open')));
    const meanwhile = await server.send('events', [event(3), event(4), event(5)]);
    await t.sleep(1500);
    net.restore();
    await waitFor('the events sent while cut off', () => has([...first, ...meanwhile]), 20_000);

    // the server restarts while the page is cut off; events land on the
    // new one before the page is back
    net.cut();
    await server.restart();
    const after = await server.send('events', [event(6), event(7), event(8)]);
    await t.sleep(1500);
    net.restore();
    // sessions live in the server's memory: the page signs in again, and
    // its feed goes on from the last id it saw
    await page.waitForSelector('#signin');
    await page.fill('#token', server.token);
    await page.click('#signin button[type=submit]');
    await waitFor('the events of the restarted server', () => has(after), 20_000);
    await page.waitForSelector('#feed li.marker[data-resume="restarted"]');
    await t.sleep(500);

    const ids = (await feedEntries(page)).map((e) => e.id);
    check(new Set(ids).size === ids.length, `an event twice in the feed: ${ids.join(' ')}`);
    const seqs = await advancedSeqs(page, 'landing.events');
    for (const s of [...first, ...meanwhile, ...after])
      check(seqs.filter((x) => x === s).length === 1, `seq ${s} is in the feed ${seqs.filter((x) => x === s).length} times`);
  } finally {
    await net.close();
  }
}
