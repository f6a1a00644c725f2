#!/usr/bin/env node
// Runs the browser cases: each case in cases/*.mjs gets a copy of
// project/ built with `sluice run`, a real `sluice serve` on a free
// loopback port (with a token, unless the case exports `open`)
// and a fresh browser context of Debian's chromium driven by
// playwright-core; it ends with one line "ui: N passed, N failed".
//   node tests/ui/run.mjs BUILD_DIR [CASE...]
//   SLUICE_UI_SCREENSHOTS=1    cases that take screenshots write them to docs/img/
//   SLUICE_DEPS=DIR            where bootstrap.sh put playwright-core (default .deps)
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const build = path.resolve(process.argv[2] || 'build/release');
const only = process.argv.slice(3);
const sluice = path.join(build, 'sluice');
const deps = path.resolve(process.env.SLUICE_DEPS || path.join(root, '.deps'));
const TOKEN = 'ui-test-token-0123456789';
const CASE_LIMIT_MS = 90_000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function run(cmd, args, opts) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { out += d; });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

// One `sluice serve` of a project copy, on a port that stays its own across
// restarts.
class Server {
  constructor(dir, port, token) {
    this.dir = dir;
    this.port = port;
    this.token = token;
    this.proc = null;
    this.log = '';
  }

  url(p = '/') {
    return `http://127.0.0.1:${this.port}${p}`;
  }

  async start() {
    const env = { ...process.env };
    if (this.token) env.SLUICE_UI_TOKEN = this.token;
    else delete env.SLUICE_UI_TOKEN;
    const proc = spawn(sluice, ['serve', '--listen', `127.0.0.1:${this.port}`], { cwd: this.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc = proc;
    proc.stdout.on('data', (d) => { this.log += d; });
    proc.stderr.on('data', (d) => { this.log += d; });
    proc.exited = new Promise((r) => proc.on('close', r));
    const until = Date.now() + 20_000;
    while (Date.now() < until) {
      if (proc.exitCode !== null) throw new Error(`sluice serve exited ${proc.exitCode}:\n${this.log}`);
      try {
        const res = await fetch(this.url('/api/health'), { headers: this.auth() });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`sluice serve did not answer /api/health:\n${this.log}`);
  }

  // Stops it as a supervisor would (SIGTERM): it must exit 0, with no
  // sanitizer's report in its log.
  async stop() {
    const proc = this.proc;
    if (!proc) return;
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    const killer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    const code = await proc.exited;
    clearTimeout(killer);
    this.proc = null;
    if (code !== 0) throw new Error(`sluice serve exited ${code ?? proc.signalCode} when stopped`);
    if (/Sanitizer|runtime error:/.test(this.log)) throw new Error('a sanitizer reported an error in sluice serve');
  }

  async restart() {
    await this.stop();
    await this.start();
  }

  auth() {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }

  // A request as a client that is no browser makes it (curl, a webhook).
  async request(method, p, { headers = {}, body, auth = true } = {}) {
    const res = await fetch(this.url(p), {
      method,
      headers: { ...(auth ? this.auth() : {}), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  // Lands events through the webhook, one request each; their sequences.
  async send(source, rows) {
    const seqs = [];
    for (const row of rows) {
      const r = await this.request('POST', `/api/ingest/webhook/${source}`, { body: row });
      if (r.status !== 202) throw new Error(`webhook answered ${r.status}: ${r.text}`);
      seqs.push(r.json.seq);
    }
    return seqs;
  }
}

function check(cond, message) {
  if (!cond) throw new Error(message);
}

async function waitFor(what, fn, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  let last;
  while (Date.now() < until) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      last = err;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
}

async function runCase(browser, file) {
  const mod = await import(pathToFileURL(path.join(here, 'cases', file)).href);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sluice-ui-'));
  const project = path.join(dir, 'project');
  // a case that exports `project` (a folder, from tests/ui) serves that one
  cpSync(path.resolve(here, mod.project || 'project'), project, { recursive: true });
  // a case that exports `open` gets a server without a token
  if (mod.open) {
    const yml = path.join(project, 'sluice.yml');
    writeFileSync(yml, readFileSync(yml, 'utf8').replace(/^server:.*\n/m, ''));
  }
  await run(sluice, ['run'], { cwd: project });
  const server = new Server(project, await freePort(), mod.open ? null : TOKEN);
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  const t = {
    server,
    project,
    // `sluice ARGS...` in the project's folder: its output, or an error
    sluice: (...args) => run(sluice, args, { cwd: project }),
    token: TOKEN,
    context,
    check,
    waitFor,
    sleep,
    errors,
    async page() {
      const page = await context.newPage();
      page.on('pageerror', (err) => errors.push(err.message));
      return page;
    },
    // Opens the UI and signs in with the token (when the server has one).
    async signedIn() {
      const page = await t.page();
      await page.goto(server.url('/'));
      if (server.token) {
        await page.fill('#token', server.token);
        await page.click('#signin button[type=submit]');
      }
      await page.waitForSelector('#models table');
      return page;
    },
    async screenshot(page, name) {
      if (process.env.SLUICE_UI_SCREENSHOTS !== '1') return;
      mkdirSync(path.join(root, 'docs/img'), { recursive: true });
      await page.screenshot({ path: path.join(root, 'docs/img', `${name}.png`) });
    },
  };
  try {
    await server.start();
    let timer;
    await Promise.race([
      mod.default(t),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timed out')), CASE_LIMIT_MS); }),
    ]).finally(() => clearTimeout(timer));
    check(errors.length === 0, `the page threw: ${errors.join('; ')}`);
    await context.close();
    await server.stop();
  } catch (err) {
    err.serverLog = server.log;
    throw err;
  } finally {
    await context.close().catch(() => {});
    await server.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const require = createRequire(import.meta.url);
  let chromium;
  try {
    ({ chromium } = require(path.join(deps, 'node_modules/playwright-core')));
  } catch (err) {
    console.log(`cannot load playwright-core from ${deps} (scripts/bootstrap.sh installs it): ${err.message}`);
    console.log('ui: 0 passed, 1 failed');
    process.exit(1);
  }
  const files = readdirSync(path.join(here, 'cases')).filter((f) => f.endsWith('.mjs')).sort()
    .filter((f) => !only.length || only.includes(f.replace(/\.mjs$/, '')));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    const name = file.replace(/\.mjs$/, '');
    const started = Date.now();
    try {
      await runCase(browser, file);
      passed++;
      console.log(`  ${name.padEnd(28)} ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    } catch (err) {
      failed++;
      console.log(`  ${name.padEnd(28)} FAILED: ${err.stack || err}`);
      if (err.serverLog) console.log(err.serverLog.split('\n').slice(-15).map((l) => `    | ${l}`).join('\n'));
    }
  }
  await browser.close();
  console.log(`ui: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.log(`ui runner: ${err.stack || err}`);
  console.log('ui: 0 passed, 1 failed');
  process.exit(1);
});
