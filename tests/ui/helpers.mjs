// What the cases read off the Live page.

// A model's cell (data-field) as text, or null while its row is not there.
export function cell(page, model, field) {
  return page.evaluate(([m, f]) => {
    const row = document.querySelector(`#models tr[data-model="${m}"]`);
    const c = row && row.querySelector(`[data-field="${f}"]`);
    return c ? c.textContent : null;
  }, [model, field]);
}

export async function refreshes(page, model) {
  const text = await cell(page, model, 'refreshes');
  return text === null ? -1 : Number(text.replace(/,/g, ''));
}

// The feed's entries, oldest first: {id, event, text}.
export function feedEntries(page) {
  return page.evaluate(() => [...document.querySelectorAll('#feed li[data-id]')].reverse()
    .map((li) => ({ id: li.dataset.id, event: li.dataset.event, text: li.querySelector('.what').textContent })));
}

// The sequences of the advance events of source in the feed.
export async function advancedSeqs(page, source) {
  return (await feedEntries(page)).filter((e) => e.event === 'advance' && e.text.startsWith(`${source}:`))
    .map((e) => Number(/\(seq (\d+)\)/.exec(e.text)?.[1]));
}

export function event(id, amount = 1, kind = 'a') {
  return { id, kind, amount };
}

// A TCP relay in front of the server, so that a case can cut the page's
// connections (every one at once) and keep new ones out for a while: the
// network going away, as the browser sees it.
export async function relay(port) {
  const net = await import('node:net');
  const sockets = new Set();
  let blocked = false;
  const srv = net.createServer((client) => {
    if (blocked) {
      client.destroy();
      return;
    }
    const upstream = net.connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: (p = '/') => `http://127.0.0.1:${srv.address().port}${p}`,
    cut() {
      blocked = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      blocked = false;
    },
    close: () => new Promise((r) => {
      for (const s of sockets) s.destroy();
      srv.close(r);
    }),
  };
}
