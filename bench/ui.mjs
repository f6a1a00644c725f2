#!/usr/bin/env node
// The web UI's benchmarks (bench/run.sh runs them with BENCH_ONLY=ui), in
// Debian's chromium driven by playwright-core, against a running
// `sluice serve` (no token). Each reads the performance marks the pages
// make (web/js/pages/dag.js, windows.js) and prints its figures with the
// target.
//   node bench/ui.mjs dag URL RUNS LABEL          first paint of the DAG page
//   node bench/ui.mjs events URL SECONDS RATE     event to painted node
//   node bench/ui.mjs windows URL RUNS NAME LABEL the windows of one model
// SLUICE_DEPS=DIR: where bootstrap.sh put playwright-core (default .deps).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const deps = path.resolve(process.env.SLUICE_DEPS || path.join(root, '.deps'));
const { chromium } = createRequire(import.meta.url)(path.join(deps, 'node_modules/playwright-core'));
const [mode, url, ...rest] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function quantile(values, q) {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
}

const ms = (v) => `${v.toFixed(1)} ms`;
const verdict = (ok) => (ok ? '' : '  MISSED');

async function browser() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
}

// A page in a context of its own (nothing cached), open on a blank page
// for a moment first: a new window's own start (chromium's, in other
// processes) is over before the page measured loads.
async function newPage(b) {
  const context = await b.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.log(`   the page threw: ${err.message}`));
  await page.goto('about:blank');
  await sleep(750);
  return { context, page };
}

// The time from navigation (the page's time origin) to a mark.
async function markTime(page, name, timeoutMs = 60_000) {
  await page.waitForFunction((n) => performance.getEntriesByName(n).length > 0, name, { timeout: timeoutMs, polling: 20 });
  return page.evaluate((n) => performance.getEntriesByName(n)[0].startTime, name);
}

// First paint of the DAG page, loads in a new browser context each (no
// cache): the first one finds the server without a drawing (it draws the
// graph for it), the others get the kept one.
async function dag(runs, label) {
  const b = await browser();
  const times = [];
  const edges = [];
  let nodes = 0;
  for (let i = 0; i <= runs; i++) {
    const { context, page } = await newPage(b);
    await page.goto(`${url}/#/dag`);
    times.push(await markTime(page, 'sluice:dag:painted'));
    edges.push(await markTime(page, 'sluice:dag:edges'));
    nodes = await page.evaluate(() => performance.getEntriesByName('sluice:dag:painted')[0].detail.nodes);
    const dagTiming = await page.evaluate(() => performance.getEntriesByType('resource')
      .filter((e) => e.name.endsWith('/api/dag')).map((e) => [e.responseStart - e.requestStart, e.responseEnd - e.responseStart, e.encodedBodySize])[0]);
    if (i === 0) console.log(`   first load (the server draws the graph): ${ms(times[0])}; /api/dag waited ${ms(dagTiming[0])}, read ${ms(dagTiming[1])}, ${(dagTiming[2] / 1e6).toFixed(2)} MB`);
    await context.close();
  }
  await b.close();
  const warm = times.slice(1);
  const p50 = quantile(warm, 0.5);
  const target = nodes > 5000 ? 1000 : 300;
  console.log(`   loads after the first (ms): ${warm.map((t) => t.toFixed(0)).join(' ')}; the edges, drawn at the frame after, p50 ${ms(quantile(edges.slice(1), 0.5))}`);
  console.log(`DAG first paint, ${label} (${nodes} nodes): p50 ${ms(p50)} from navigation to the frame with every node painted; first load ${ms(times[0])} (target <= ${target} ms)${verdict(p50 <= target)}`);
}

// Webhook events at rate a second for seconds, into a served project
// with live models, while the DAG page shows it: each event's arrival in
// the page to the frame that repainted its node (the page's measures),
// and, for the advances, each request's start to that frame.
async function events(seconds, rate, source) {
  const b = await browser();
  const { page } = await newPage(b);
  await page.goto(`${url}/#/dag`);
  await markTime(page, 'sluice:dag:painted');
  await sleep(1000);
  const sent = new Map();
  const measures = [];
  let failures = 0;
  let inflight = 0;
  let skipped = 0;
  const drain = async () => measures.push(...await page.evaluate(() => {
    const e = performance.getEntriesByName('sluice:dag:event').map((m) => ({ start: m.startTime, duration: m.duration, seq: m.detail.seq, node: m.detail.node }));
    performance.clearMeasures('sluice:dag:event');
    return e;
  }));
  const origin = await page.evaluate(() => performance.timeOrigin);
  const total = Math.round(seconds * rate);
  const start = Date.now();
  const reader = setInterval(() => drain().catch(() => {}), 1000);
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    if (inflight >= 64) {
      skipped++;
      continue;
    }
    inflight++;
    const at = Date.now();
    fetch(`${url}/api/ingest/webhook/${source}`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: i, k: i % 97, v: i * 0.5 }),
    }).then(async (res) => {
      const doc = await res.json();
      if (res.status !== 202) failures++;
      else sent.set(doc.seq, Math.min(sent.get(doc.seq) ?? Infinity, at));
    }).catch(() => { failures++; }).finally(() => { inflight--; });
  }
  const took = (Date.now() - start) / 1000;
  await sleep(2000);
  clearInterval(reader);
  await drain();
  await b.close();
  const arrival = measures.map((m) => m.duration);
  const fromSend = measures.filter((m) => m.seq !== null && sent.has(m.seq))
    .map((m) => origin + m.start + m.duration - sent.get(m.seq));
  const nodes = new Set(measures.map((m) => m.node));
  const p99 = quantile(arrival, 0.99);
  console.log(`   ${total - skipped} webhook requests in ${took.toFixed(1)} s (${((total - skipped) / took).toFixed(0)}/s; ${failures} failed, ${skipped} not sent: 64 in flight), ${measures.length} node repaints measured over ${nodes.size} nodes`);
  console.log(`   an advance's request to its source's node painted: p50 ${ms(quantile(fromSend, 0.5))}, p99 ${ms(quantile(fromSend, 0.99))}, max ${ms(Math.max(...fromSend))} (${fromSend.length} advances; the landing's commit included)`);
  console.log(`event to painted node at ${rate} webhook events/s: p50 ${ms(quantile(arrival, 0.5))}, p99 ${ms(p99)}, max ${ms(Math.max(...arrival))} from the event's arrival in the page to the frame that repainted its node (target p99 <= 100 ms)${verdict(p99 <= 100)}`);
}

// The Windows page of one model, loads in a new context each: from
// navigation, and from the request of its windows, to the frame that
// shows them.
async function windows(runs, name, label) {
  const b = await browser();
  const nav = [];
  const load = [];
  const server = [];
  let detail = null;
  for (let i = 0; i <= runs; i++) {
    const { context, page } = await newPage(b);
    await page.goto(`${url}/#/windows/${name}`);
    nav.push(await markTime(page, 'sluice:windows:drawn'));
    load.push(await page.evaluate(() => performance.getEntriesByName('sluice:windows:load')[0].duration));
    detail = await page.evaluate(() => performance.getEntriesByName('sluice:windows:drawn')[0].detail);
    server.push(await page.evaluate((n) => performance.getEntriesByType('resource')
      .filter((e) => e.name.includes(`/api/windows/${n}`)).map((e) => e.responseStart - e.requestStart)[0], name));
    await context.close();
  }
  await b.close();
  const p50 = quantile(load, 0.5);
  console.log(`   loads (ms from the request to the frame): ${load.map((t) => t.toFixed(0)).join(' ')}; the server's answer p50 ${ms(quantile(server, 0.5))}; from navigation p50 ${ms(quantile(nav, 0.5))}`);
  console.log(`windows drawn, ${label} (${detail.windows} windows in ${detail.runs} runs): p50 ${ms(p50)} from the request to the frame that shows them (target <= 500 ms)${verdict(p50 <= 500)}`);
}

try {
  if (mode === 'dag') await dag(Number(rest[0]), rest[1]);
  else if (mode === 'events') await events(Number(rest[0]), Number(rest[1]), rest[2] || 'events');
  else if (mode === 'windows') await windows(Number(rest[0]), rest[1], rest[2]);
  else throw new Error(`unknown mode ${mode}`);
} catch (err) {
  console.log(`ui bench: ${err.stack || err}`);
  process.exit(1);
}
