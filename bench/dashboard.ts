// bench/dashboard: the dashboard on a make-corpus home.
//
//   node --import tsx bench/dashboard.ts --home <captured corpus dir> [--runs 5] [--records 10000] [--cpu-prof DIR]
//
// Prints, in one run:
//   search     p50/p99 of GET /api/search over HTTP (a real `agent-bridge
//              dashboard` process, Bearer auth, a reader thread answering)
//              against the same planted queries through HistoryReader in this
//              process (the baseline: the same validation and search, no HTTP,
//              no thread hop), alternating per query; target ≤ 1.2× + 1 ms;
//              and through a ReaderPool in this process (the thread hop
//              alone, no HTTP), and over HTTP to a bare node:http server in
//              another process answering from a reader thread
//              (bench/lib/bare-search-server.ts: no hono, no auth, no
//              headers: the floor of HTTP plus a thread hop on this
//              machine), which split the difference;
//   first hit  in Chromium, time from navigation start to the first rendered
//              hit of /search?q=<planted rare word> (target ≤ 300 ms);
//   10k conv   time from navigation start to the first rendered entry of a
//              conversation of --records records (a synthetic store built
//              here: one Claude conversation of one JSONL line per record),
//              and the entries in the page (paged: never all; target ≤ 1 s);
//   RSS        the dashboard process's resident and peak memory (VmRSS/VmHWM).
//
// --cpu-prof DIR writes a V8 CPU profile of each dashboard process (each of
// its threads) into DIR when it stops (read them with bench/profile-summary.ts).

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { ReaderPool } from '../src/dashboard/reader-pool.ts';
import { HistoryReader } from '../src/read/history-reader.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { LONG_CONVERSATION, longConversationHome } from '../test/helpers/long-conversation.ts';

const { values: args } = parseArgs({
  options: { home: { type: 'string' }, runs: { type: 'string', default: '5' }, records: { type: 'string', default: '10000' }, 'cpu-prof': { type: 'string' } },
});
if (args.home === undefined) throw new Error('usage: bench/dashboard.ts --home <captured make-corpus dir> [--runs N] [--records N]');
const home = resolve(args.home);
const runs = Number(args.runs);
const REPO = resolve(import.meta.dirname, '..');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

interface Planted {
  readonly id: string;
  readonly kind: string;
  readonly text: string;
  readonly filters: Record<string, string>;
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const f = (n: number): string => n.toFixed(2);

interface Running {
  readonly child: ChildProcess;
  readonly base: string;
  readonly loginUrl: string;
  readonly token: string;
}

function startDashboard(env: NodeJS.ProcessEnv): Promise<Running> {
  const profile = args['cpu-prof'] === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', resolve(args['cpu-prof'])];
  const child = spawn(process.execPath, [...profile, join(REPO, 'bin/agent-bridge'), 'dashboard', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((done, fail) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/[^/\s]+\/)login\?token=(\S+)/.exec(out);
      if (m) done({ child, base: m[1] as string, loginUrl: m[0], token: m[2] as string });
    });
    child.once('exit', (code) => fail(new Error(`dashboard exited ${code}`)));
  });
}

function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

function envFor(userHome: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: userHome, AGENT_BRIDGE_HOME: join(userHome, '.agent-bridge') };
}

/** `?q=...` of a planted query (the dashboard's documented mapping). */
function query(q: Planted): string {
  const params = new URLSearchParams({ q: q.text });
  for (const [k, v] of Object.entries(q.filters)) params.set(k, v);
  return params.toString();
}

/** bench/lib/bare-search-server.ts on the corpus, and its port. */
function startBare(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'bench/lib/bare-search-server.ts')], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((done, fail) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /port (\d+)/.exec(out);
      if (m) done({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => fail(new Error(`bare search server exited ${code}`)));
  });
}

async function benchSearch(running: Running, planted: Planted[]): Promise<void> {
  const reader = new HistoryReader(resolvePaths(envFor(home)));
  const pool = new ReaderPool(envFor(home), 1);
  const direct: number[] = [];
  const thread: number[] = [];
  const http: number[] = [];
  const bareHttp: number[] = [];
  const serverRead: number[] = [];
  const bare = await startBare(envFor(home));
  const headers = { Authorization: `Bearer ${running.token}` };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const bareAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(running.base);
  const get = (q: Planted, to: { port: number; path: string; agent: Agent; headers: Record<string, string> }): Promise<number> =>
    new Promise((done, fail) => {
      const t = performance.now();
      const req = request({ host: hostname, port: to.port, path: `${to.path}?${query(q)}`, headers: to.headers, agent: to.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (to.agent === agent) serverRead.push(Number(/read;dur=([\d.]+)/.exec(String(res.headers['server-timing'] ?? ''))?.[1] ?? Number.NaN));
          if (res.statusCode !== 200) fail(new Error(`${q.id}: ${res.statusCode}`));
          else done(performance.now() - t);
        });
      });
      req.on('error', fail);
      req.end();
    });
  const overHttp = (q: Planted): Promise<number> => get(q, { port: Number(port), path: '/api/search', agent, headers });
  const overBareHttp = (q: Planted): Promise<number> => get(q, { port: bare.port, path: '/search', agent: bareAgent, headers: {} });
  const inProcess = async (q: Planted): Promise<number> => {
    const t = performance.now();
    await reader.search({ query: q.text, filters: q.filters });
    return performance.now() - t;
  };
  const onThread = async (q: Planted): Promise<number> => {
    const t = performance.now();
    await pool.run('search', { query: q.text, filters: q.filters });
    return performance.now() - t;
  };
  const ways: Array<[number[], (q: Planted) => Promise<number>]> = [
    [http, overHttp],
    [direct, inProcess],
    [thread, onThread],
    [bareHttp, overBareHttp],
  ];
  for (const q of planted) for (const [, way] of ways) await way(q);
  for (let run = 0; run < runs; run++) {
    // The order rotates per query so that no way always follows another.
    for (const [i, q] of planted.entries()) {
      for (let k = 0; k < ways.length; k++) {
        const [into, way] = ways[(i + run + k) % ways.length] as [number[], (q: Planted) => Promise<number>];
        into.push(await way(q));
      }
    }
  }
  reader.close();
  await pool.close();
  agent.destroy();
  bareAgent.destroy();
  bare.child.kill('SIGTERM');
  const [d50, d99, h50, h99] = [percentile(direct, 50), percentile(direct, 99), percentile(http, 50), percentile(http, 99)];
  console.log(`search (${planted.length} planted queries x ${runs} runs)`);
  console.log(`  reader directly  p50 ${f(d50)} ms  p99 ${f(d99)} ms`);
  console.log(`  reader thread    p50 ${f(percentile(thread, 50))} ms  p99 ${f(percentile(thread, 99))} ms  (a ReaderPool in this process: the hop, no HTTP)`);
  const [b50, b99] = [percentile(bareHttp, 50), percentile(bareHttp, 99)];
  console.log(`  bare HTTP        p50 ${f(b50)} ms  p99 ${f(b99)} ms  (node:http in another process, a reader thread, no hono/auth/headers: the floor here)`);
  console.log(`  GET /api/search  p50 ${f(h50)} ms  p99 ${f(h99)} ms  (above the floor: p50 ${f(h50 - b50)} ms, p99 ${f(h99 - b99)} ms)`);
  const measured = serverRead.slice(-http.length);
  console.log(`    of which the reader thread (Server-Timing read, hop included)  p50 ${f(percentile(measured, 50))} ms  p99 ${f(percentile(measured, 99))} ms`);
  console.log(`  ratio p50 ${f(h50 / d50)}x  p99 ${f(h99 / d99)}x; bound 1.2x + 1 ms: p50 ${f(d50 * 1.2 + 1)} ms ${h50 <= d50 * 1.2 + 1 ? 'met' : 'MISSED'}, p99 ${f(d99 * 1.2 + 1)} ms ${h99 <= d99 * 1.2 + 1 ? 'met' : 'MISSED'}`);
}

/** Milliseconds from navigation start until `selector` is first in the document (an observer installed before any page script). */
async function timeTo(page: Page, url: string, selector: string): Promise<number> {
  await page.addInitScript((sel: string) => {
    // Runs in the page (this project's TypeScript has no DOM library, hence the local shapes).
    interface Observer {
      observe(target: unknown, options: { childList: boolean; subtree: boolean }): void;
      disconnect(): void;
    }
    const w = globalThis as unknown as {
      __seen?: number;
      MutationObserver: new (callback: (records: unknown, observer: Observer) => void) => Observer;
      document: { querySelector(s: string): unknown };
    };
    new w.MutationObserver((_records, observer) => {
      if (w.__seen === undefined && w.document.querySelector(sel) !== null) {
        w.__seen = performance.now();
        observer.disconnect();
      }
    }).observe(w.document, { childList: true, subtree: true });
  }, selector);
  await page.goto(url);
  await page.waitForFunction(() => (globalThis as unknown as { __seen?: number }).__seen !== undefined, undefined, { timeout: 30_000 });
  return page.evaluate(() => (globalThis as unknown as { __seen: number }).__seen);
}

async function benchBrowser(running: Running, label: string, path: string, selector: string, count?: string): Promise<void> {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: FLAGS });
  try {
    const times: number[] = [];
    let shown = 0;
    for (let i = 0; i < runs + 1; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(running.loginUrl);
      const t = await timeTo(page, `${running.base}${path}`, selector);
      if (i > 0) times.push(t);
      if (count !== undefined) shown = await page.locator(count).count();
      await context.close();
    }
    console.log(`${label}: p50 ${f(percentile(times, 50))} ms, worst ${f(Math.max(...times))} ms over ${times.length} loads${count === undefined ? '' : ` (${shown} entries in the page)`}`);
  } finally {
    await browser.close();
  }
}

const planted = (JSON.parse(readFileSync(join(home, 'queries.json'), 'utf8')) as { queries: Planted[] }).queries;
const main = await startDashboard(envFor(home));
try {
  await benchSearch(main, planted);
  const rare = planted.find((q) => q.kind === 'rare' && Object.keys(q.filters).length === 0) ?? (planted[0] as Planted);
  await benchBrowser(main, `first rendered hit (/search?q=${rare.text})`, `search?${query({ ...rare, filters: {} })}`, '.hit');
  const m = memory(main.child.pid as number);
  console.log(`dashboard process on the corpus: RSS ${m.rss.toFixed(1)} MiB, peak ${m.peak.toFixed(1)} MiB`);
} finally {
  main.child.kill('SIGTERM');
}
const synthetic = longConversationHome(Number(args.records));
const big = await startDashboard(envFor(synthetic));
try {
  await benchBrowser(big, `first rendered entry of a ${Number(args.records).toLocaleString()}-record conversation`, `c/${encodeURIComponent(LONG_CONVERSATION)}`, '.entry', '.entry');
  const m = memory(big.child.pid as number);
  console.log(`dashboard process serving it: RSS ${m.rss.toFixed(1)} MiB, peak ${m.peak.toFixed(1)} MiB`);
} finally {
  big.child.kill('SIGTERM');
  if (big.child.exitCode === null && big.child.signalCode === null) await new Promise((resolve) => big.child.once('exit', resolve));
  rmSync(synthetic, { recursive: true, force: true }); // generated for this run (about 10 MB per run otherwise left in the temp folder)
}
