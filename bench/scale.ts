// bench/scale: does capture cost the same per GiB as the corpus grows?
//
//   node --import tsx bench/scale.ts [--dir /tmp/bench-scale] [--sizes 1GiB,4GiB,8GiB]
//        [--many-sessions 9000] [--many-bytes 1GiB] [--runs 3] [--idle-seconds 60] [--skip-idle]
//
// For each size, a make-corpus.mjs home (generated once into --dir, reused
// after; OpenCode's database included) is captured from scratch by a real
// `agent-bridge ingest --once --pace max` (mirrors off), and the bench prints:
//   seconds per GiB  of the bytes captured (the run's own rawBytes);
//   peak RSS         of the capturing process (VmHWM, polled);
//   bytes per byte   history.db (and its WAL) per byte captured;
//   first pass       seconds from start until the first discovery pass ended
//                    (the status file the run publishes every second);
//   search           p50/p99 of HistoryReader.search over the planted queries
//                    (--runs times each after a warm-up), in this process;
//   short pages      planted queries whose page (the default limit) had fewer
//                    hits than min(limit, planted matches), in the last run:
//                    a filter whose matches lie behind more newer ones than a
//                    search examines (at 8 GiB before agent leaps: 10-13 of 36);
//   get_conversation p99 of the first page of the conversations the hits name.
// Then each size against the first (the same-run baseline): seconds per GiB
// and bytes per byte (target within ±15 %), search p99 (target ≤ 2× at the
// largest size) and RSS (target ≤ 300 MiB at every size).
//
// One more home holds many small files (--many-sessions top-level sessions in
// --many-bytes; about 10,000 files at the defaults): its capture is reported
// the same way, and then `serve` idles on it (bench/lib/idle-cpu.ts: 90 s to
// settle, CPU over --idle-seconds, the scrubber's paced sweeps left out;
// target under 1 % of a core). Not part of `npm test`; Linux only.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SEARCH_LIMIT } from '../protocols/search.ts';
import type { OnceSummary } from '../protocols/service.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { HistoryReader } from '../src/read/history-reader.ts';
import { statusFilePath } from '../src/store/status-file.ts';
import { REPO, ensureCorpus, type CorpusSpec } from './lib/corpus.ts';
import { idleCpuPercent } from './lib/idle-cpu.ts';
import { MiB, parseSize, summarize } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: '/tmp/bench-scale' },
    sizes: { type: 'string', default: '1GiB,4GiB,8GiB' },
    'many-sessions': { type: 'string', default: '9000' },
    'many-bytes': { type: 'string', default: '1GiB' },
    runs: { type: 'string', default: '3' },
    'idle-seconds': { type: 'string', default: '60' },
    'skip-idle': { type: 'boolean', default: false },
  },
  strict: true,
});

const dir = resolve(values.dir as string);
const runs = Number(values.runs);
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const GiB = 1024 * MiB;

interface Planted {
  readonly text: string;
  readonly filters: Record<string, string>;
  readonly expected: { readonly matches: number };
}

interface Figures {
  readonly label: string;
  readonly files: number;
  readonly capturedBytes: number;
  readonly seconds: number;
  readonly peakRssMiB: number;
  readonly bytesPerByte: number;
  readonly firstPassSeconds: number | null;
  readonly search: { readonly p50: number; readonly p99: number };
  /** Planted queries whose first page (the default limit) had fewer hits than min(limit, planted matches). */
  readonly shortPages: number;
  readonly conversationP99: number;
}

/** The environment that points the product at a corpus home and a fresh bridge home of its own. */
function homeEnv(corpus: string, bridgeHome: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: corpus, AGENT_BRIDGE_HOME: bridgeHome, AGENT_BRIDGE_HISTORY_MIRRORS: 'off' };
  for (const key of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB']) delete env[key];
  return env;
}

function peakRss(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0; // exited
  }
}

function firstPassDone(statusFile: string): boolean {
  try {
    const status = JSON.parse(readFileSync(statusFile, 'utf8')) as { discovery?: { passes?: number } };
    return (status.discovery?.passes ?? 0) > 0;
  } catch {
    return false; // not written yet, or being replaced
  }
}

/** A real `ingest --once --pace max` from scratch, watched from outside. */
async function capture(env: NodeJS.ProcessEnv): Promise<{ summary: OnceSummary; seconds: number; peakRssMiB: number; firstPassSeconds: number | null }> {
  const statusFile = statusFilePath(resolvePaths(env));
  const started = performance.now();
  const child = spawn(join(REPO, 'bin/agent-bridge'), ['ingest', '--once', '--pace', 'max', '--json'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  let peak = 0;
  let firstPassSeconds: number | null = null;
  const poll = setInterval(() => {
    peak = Math.max(peak, peakRss(child.pid as number));
    if (firstPassSeconds === null && firstPassDone(statusFile)) firstPassSeconds = (performance.now() - started) / 1000;
  }, 250);
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  clearInterval(poll);
  if (code !== 0) throw new Error(`ingest --once exited with ${code}`);
  return { summary: JSON.parse(out) as OnceSummary, seconds: (performance.now() - started) / 1000, peakRssMiB: peak, firstPassSeconds };
}

function fileBytes(path: string): number {
  return ['', '-wal'].reduce((total, suffix) => total + (existsSync(path + suffix) ? statSync(path + suffix).size : 0), 0);
}

/** Planted queries through the reader (warm-up, then `runs` each); the first page of every conversation the hits name. */
async function reads(env: NodeJS.ProcessEnv, corpus: string): Promise<Pick<Figures, 'search' | 'shortPages' | 'conversationP99'>> {
  const planted = (JSON.parse(readFileSync(join(corpus, 'queries.json'), 'utf8')) as { queries: Planted[] }).queries;
  const reader = new HistoryReader(resolvePaths(env));
  try {
    const times: number[] = [];
    const conversations = new Set<string>();
    let shortPages = 0;
    for (let run = 0; run <= runs; run++) {
      for (const q of planted) {
        const t = performance.now();
        const result = await reader.search({ query: q.text, filters: q.filters });
        if (run > 0) times.push(performance.now() - t);
        if (run === runs && result.hits.length < Math.min(SEARCH_LIMIT.default, q.expected.matches)) shortPages++;
        for (const hit of result.hits) if (hit.conversation !== null) conversations.add(hit.conversation);
      }
    }
    const pages: number[] = [];
    for (const id of [...conversations].slice(0, 300)) {
      const t = performance.now();
      await reader.getConversation({ id });
      pages.push(performance.now() - t);
    }
    const s = summarize(times);
    return { search: { p50: s.p50, p99: s.p99 }, shortPages, conversationP99: summarize(pages).p99 };
  } finally {
    reader.close();
  }
}

async function measure(label: string, spec: CorpusSpec): Promise<Figures> {
  ensureCorpus(spec, log);
  const bridgeHome = join(dir, `home-${label}`);
  rmSync(bridgeHome, { recursive: true, force: true });
  const env = homeEnv(spec.dir, bridgeHome);
  log(`${label}: capturing ${spec.dir} into ${bridgeHome}`);
  const run = await capture(env);
  const status = run.summary.status;
  const figures: Figures = {
    label,
    files: status.counts.sources,
    capturedBytes: run.summary.rawBytes,
    seconds: run.seconds,
    peakRssMiB: run.peakRssMiB,
    bytesPerByte: fileBytes(join(bridgeHome, 'history.db')) / run.summary.rawBytes,
    firstPassSeconds: run.firstPassSeconds,
    ...(await reads(env, spec.dir)),
  };
  log(`${label}: ${line(figures)}`);
  return figures;
}

const f1 = (n: number): string => n.toFixed(1);
const f2 = (n: number): string => n.toFixed(2);

function line(x: Figures): string {
  return [
    `${x.files} sources, ${f1(x.capturedBytes / MiB)} MiB captured in ${f1(x.seconds)} s = ${f1(x.seconds / (x.capturedBytes / GiB))} s/GiB`,
    `peak RSS ${f1(x.peakRssMiB)} MiB`,
    `history.db ${f2(x.bytesPerByte)} B/B`,
    `first pass ${x.firstPassSeconds === null ? '?' : f1(x.firstPassSeconds)} s`,
    `search p50/p99 ${f2(x.search.p50)}/${f2(x.search.p99)} ms, short pages ${x.shortPages}`,
    `get_conversation p99 ${f2(x.conversationP99)} ms`,
  ].join('; ');
}

const sizes = (values.sizes as string).split(',').map((s) => s.trim()).filter((s) => s !== '');
// A size that cannot be read fails now, not after an hour of capture.
for (const size of [...sizes, values['many-bytes'] as string]) parseSize(size);
const results: Figures[] = [];
for (const size of sizes) {
  results.push(await measure(size, { dir: join(dir, `corpus-${size}`), bytes: size, hugeLineMb: 0, hugeFileMb: 0 }));
}
const manyLabel = `${values['many-bytes']}-${values['many-sessions']}-sessions`;
const manyDir = join(dir, `corpus-${manyLabel}`);
const many = await measure(manyLabel, { dir: manyDir, bytes: values['many-bytes'] as string, hugeLineMb: 0, hugeFileMb: 0, sessions: Number(values['many-sessions']) });

console.log(`$ node --import tsx bench/scale.ts ${process.argv.slice(2).join(' ')}`.trim());
for (const x of [...results, many]) console.log(`${x.label.padEnd(24)} ${line(x)}`);
const base = results[0];
if (base !== undefined) {
  const perGiB = (x: Figures): number => x.seconds / (x.capturedBytes / GiB);
  for (const x of results.slice(1)) {
    console.log(
      `${x.label} against ${base.label}: s/GiB ${f2(perGiB(x) / perGiB(base))}x, B/B ${f2(x.bytesPerByte / base.bytesPerByte)}x (targets within 0.85-1.15), ` +
        `search p99 ${f2(x.search.p99 / base.search.p99)}x (target <= 2 at the largest), get_conversation p99 ${f2(x.conversationP99 / base.conversationP99)}x`,
    );
  }
  const worstRss = Math.max(...results.map((x) => x.peakRssMiB), many.peakRssMiB);
  console.log(`peak RSS at worst ${f1(worstRss)} MiB (target <= 300 MiB)`);
}
if (values['skip-idle'] !== true) {
  const seconds = Number(values['idle-seconds']);
  const percent = await idleCpuPercent({ repo: REPO, env: homeEnv(manyDir, join(dir, `home-${manyLabel}`)), warmMs: 90_000, windowMs: seconds * 1000, noScrub: true });
  console.log(`serve idle on ${many.files} sources: ${f2(percent)} % of a core over ${seconds} s (after 90 s; scrubber off; target < 1 %)`);
}
