// Usage: node --import tsx bench/mirror.ts [--corpus /tmp/issue-12-mirror/corpus-1g] [--bytes 1GiB]
//          [--work /tmp/issue-12-mirror/bench-mirror] [--runs alone,mirrors,alone,scratch] [--pace max|spec]
//
// Project mirrors benchmark (issue 12, section 6). On a make-corpus.mjs corpus
// (generated once, reused) whose projects are made Git repositories
// (bench/lib/relocate-corpus.ts), with the physical default bridge home, so
// replicas go into the projects' own folders:
//   alone    `ingest --once` with AGENT_BRIDGE_HISTORY_MIRRORS=off, from an
//            empty home: capture throughput and writer batch latency alone;
//   mirrors  the same with mirrors on: capture while every replica syncs;
//            the ratio to the mean of the `alone` runs is the interference;
//   scratch  replicas deleted, central store kept: time to a full sync from
//            scratch, and the step latency of a sync alone.
// Every writer batch and mirror step is timed in the worker
// (bench/lib/instrument-mirror-worker.ts); each run is its own child process.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO, ensureCorpus } from './lib/corpus.ts';
import type { MirrorRunResult } from './lib/mirror-child.ts';
import { relocateCorpus } from './lib/relocate-corpus.ts';
import { MiB, summarize, type Summary } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: '/tmp/issue-12-mirror/corpus-1g' },
    bytes: { type: 'string', default: '1GiB' },
    work: { type: 'string', default: '/tmp/issue-12-mirror/bench-mirror' },
    runs: { type: 'string', default: 'alone,mirrors,alone,scratch' },
    pace: { type: 'string', default: 'max' },
  },
  strict: true,
});
const command = `node --import tsx bench/mirror.ts ${process.argv.slice(2).join(' ')}`.trim();
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const corpus = values.corpus as string;
const work = values.work as string;
const runs = (values.runs as string).split(',').filter((r) => r !== '');
for (const r of runs) if (!['alone', 'mirrors', 'scratch'].includes(r)) throw new Error(`--runs: unknown run "${r}" (alone, mirrors, scratch)`);
mkdirSync(work, { recursive: true });

const made = ensureCorpus({ dir: corpus, bytes: values.bytes as string, hugeLineMb: 0, hugeFileMb: 0 }, log);
const projects = relocateCorpus(corpus, work, log);
log(`corpus ${corpus}: ${(made.manifestBytes / MiB).toFixed(0)} MiB, ${projects.length} Git projects; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
const bridgeHome = join(corpus, '.agent-bridge');

/** Bench data only: the bench's own bridge home and replicas, removed between runs. */
function removeReplicas(): void {
  for (const p of projects) rmSync(join(p, '.agent-bridge'), { recursive: true, force: true });
}

function child(run: string, index: number): MirrorRunResult {
  const out = join(work, `${run}-${index}.json`);
  const mirrors = run === 'alone' ? 'off' : 'on';
  log(`run ${index}: ${run} (mirrors ${mirrors}, pace ${values.pace})`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'bench/lib/mirror-child.ts'), '--corpus', corpus, '--mirrors', mirrors, '--pace', values.pace as string, '--out', out], {
    cwd: REPO,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`mirror-child failed with status ${result.status}`);
  return JSON.parse(readFileSync(out, 'utf8')) as MirrorRunResult;
}

function sizeOf(path: string): number {
  return ['', '-wal'].reduce((n, s) => n + (existsSync(`${path}${s}`) ? statSync(`${path}${s}`).size : 0), 0);
}

function replicaBytes(): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const p of projects) {
    const dir = join(p, '.agent-bridge');
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).filter((n) => /^conversations-[0-9a-f]{16}\.db$/.test(n))) {
      bytes += sizeOf(join(dir, name));
      files++;
    }
  }
  return { bytes, files };
}

interface CaptureFigures {
  readonly seconds: number;
  readonly mibPerSecond: number;
  readonly batches: Summary;
}

function capture(r: MirrorRunResult): CaptureFigures {
  const last = r.commits.at(-1)?.[0] ?? r.elapsedMs;
  const raw = r.commits.reduce((n, c) => n + c[2], 0);
  return { seconds: last / 1000, mibPerSecond: raw / MiB / (last / 1000), batches: summarize(r.commits.map((c) => c[1])) };
}

const results: Array<{ run: string; result: MirrorRunResult; replicas?: { bytes: number; files: number }; central?: number }> = [];
runs.forEach((run, index) => {
  if (run === 'scratch') {
    if (!existsSync(join(bridgeHome, 'history.db'))) throw new Error('scratch needs a captured central store: run alone or mirrors first');
    removeReplicas();
  } else {
    rmSync(bridgeHome, { recursive: true, force: true });
    removeReplicas();
  }
  const result = child(run, index);
  const entry: (typeof results)[number] = { run, result };
  if (run !== 'alone') Object.assign(entry, { replicas: replicaBytes(), central: sizeOf(join(bridgeHome, 'history.db')) });
  results.push(entry);
});

const fmt = (n: number, digits = 1): string => n.toFixed(digits);
const lines: string[] = [`# ${command}`, `# load ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${projects.length} Git projects`];
const alone = results.filter((r) => r.run === 'alone').map((r) => capture(r.result));
const aloneMean = alone.length === 0 ? null : alone.reduce((n, c) => n + c.mibPerSecond, 0) / alone.length;
for (const { run, result, replicas, central } of results) {
  const c = capture(result);
  const steps = result.steps.filter((s) => s[3] > 0 || s[4] > 0); // idle turns left out
  const sync = summarize(steps.map((s) => s[1]));
  const wall = summarize(steps.map((s) => s[2]));
  const copied = steps.reduce((n, s) => n + s[3], 0);
  const states = new Map<string, number>();
  for (const p of result.mirror?.projects ?? []) states.set(p.state, (states.get(p.state) ?? 0) + 1);
  lines.push(`## ${run}: ${fmt(result.elapsedMs / 1000)} s, ${result.records} records captured (${fmt(result.rawBytes / MiB, 0)} MiB)`);
  if (result.commits.length > 0) {
    lines.push(`capture: ${fmt(c.mibPerSecond, 2)} MiB/s over ${fmt(c.seconds)} s; batches ${c.batches.count}, p50 ${fmt(c.batches.p50, 2)} ms, p99 ${fmt(c.batches.p99, 2)} ms, max ${fmt(c.batches.max, 1)} ms`);
    if (run === 'mirrors' && aloneMean !== null) lines.push(`capture ratio with mirrors / alone (mean of ${alone.length}): ${fmt(c.mibPerSecond / aloneMean, 3)}  (target >= 0.8); batch p99 alone ${alone.map((a) => fmt(a.batches.p99, 2)).join(', ')} ms`);
  }
  if (steps.length > 0) {
    const during = steps.filter((s) => s[0] <= c.seconds * 1000).length;
    const firstCopy = steps.find((s) => s[3] > 0)?.[0] ?? 0;
    const lastCopy = [...steps].reverse().find((s) => s[3] > 0)?.[0] ?? 0;
    lines.push(`mirror steps: ${steps.length} (${during} during capture), ${copied} records copied; step (sync part) p50 ${fmt(sync.p50, 2)} ms, p99 ${fmt(sync.p99, 2)} ms, max ${fmt(sync.max, 1)} ms (target p99 <= 50 ms); whole step incl. Git p50 ${fmt(wall.p50, 2)} ms, p99 ${fmt(wall.p99, 2)} ms`);
    lines.push(`mirror copying from ${fmt(firstCopy / 1000)} s to ${fmt(lastCopy / 1000)} s; at pace spec the same steps take at least ${fmt((steps.length * 100 + wall.total) / 1000, 0)} s (100 ms between steps)`);
    lines.push(`projects: ${[...states].map(([s, n]) => `${n} ${s}`).join(', ')}; ${result.mirror?.infrastructure ?? 0} plugin caches`);
  }
  if (replicas !== undefined && central !== undefined) {
    const raw = results.find((r) => r.result.rawBytes > 0)?.result.rawBytes ?? 0;
    lines.push(`replicas: ${replicas.files} files, ${fmt(replicas.bytes / MiB, 0)} MiB; history.db ${fmt(central / MiB, 0)} MiB; replica bytes per central byte ${fmt(replicas.bytes / central, 3)}${raw > 0 ? `, per captured raw byte ${fmt(replicas.bytes / raw, 3)}` : ''}`);
  }
}
const report = lines.join('\n');
process.stdout.write(`${report}\n`);
writeFileSync(join(work, 'summary.txt'), `${report}\n`);
