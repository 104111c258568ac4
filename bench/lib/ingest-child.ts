// Child process of bench/ingest.ts: one whole `ingest --once` run, driven
// through HistoryService from this process's main thread (the broker's
// thread in production), on a fresh bridge home. It measures what only the
// ingesting process can see: its main thread's event-loop delay (idle before
// and after, and during ingestion), its peak RSS (VmHWM covers every thread),
// and every writer batch (through bench/lib/instrument-worker.ts).
// Usage: node --import tsx bench/lib/ingest-child.ts --corpus DIR --home DIR --pace max|spec --out FILE [--window-s N]

import { readFileSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { BroadcastChannel } from 'node:worker_threads';
import type { HistoryStatus, OnceSummary, Pace } from '../../protocols/service.ts';
import { corpusEnv } from './corpus.ts';
import { instrumentedHistoryService } from './instrumented-service.ts';
import { BENCH_CHANNEL, threadTimes, type CommitSample, type MergeSample, type WorkerSample } from './instrument-worker-channel.ts';
import type { EldSummary, IngestRunResult } from './results.ts';
import { procMemory, summarize, type Summary } from './stats.ts';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    home: { type: 'string' },
    pace: { type: 'string' },
    out: { type: 'string' },
    'window-s': { type: 'string' },
    'idle-s': { type: 'string' },
    'status-ms': { type: 'string' },
  },
  strict: true,
});
if (values.corpus === undefined || values.home === undefined || values.out === undefined) throw new Error('--corpus, --home and --out are required');
const pace = (values.pace ?? 'max') as Pace;
const windowMs = Number(values['window-s'] ?? 0) * 1000;
const idleMs = Number(values['idle-s'] ?? 5) * 1000;
const statusMs = Number(values['status-ms'] ?? 2000);
const ELD_RESOLUTION_MS = 10;

// Route the history worker through the instrumented entry (see instrument-worker.ts).
const HistoryService = await instrumentedHistoryService(new URL('./instrument-worker.ts', import.meta.url).href);

/** Event-loop delay over `ms`, in ms beyond the sampling interval. */
function eldSummary(h: ReturnType<typeof monitorEventLoopDelay>): EldSummary {
  const ms = (ns: number): number => Math.max(0, ns / 1e6 - ELD_RESOLUTION_MS);
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), mean: ms(h.mean), count: h.count };
}

async function idleEld(ms: number): Promise<EldSummary> {
  const h = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  h.enable();
  await new Promise((r) => setTimeout(r, ms));
  h.disable();
  return eldSummary(h);
}

const commits: CommitSample[] = [];
const merges: MergeSample[] = [];
const workerSamples: WorkerSample[] = [];
const writerSamples: WorkerSample[] = [];
const channel = new BroadcastChannel(BENCH_CHANNEL);
channel.onmessage = (event: unknown) => {
  const data = (event as { data: CommitSample | MergeSample | WorkerSample }).data;
  if (data.kind === 'commit') commits.push(data);
  else if (data.kind === 'merge') merges.push(data);
  else if (data.thread === 'writer') writerSamples.push(data);
  else workerSamples.push(data);
};

const rssSamples: Array<{ t: number; rss: number }> = [];
const idleBefore = await idleEld(idleMs);

const env = corpusEnv(values.corpus, values.home);
const service = new HistoryService({ mode: 'once', pace, env });
const eld = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
eld.enable();
const started = performance.now();
const cpuStart = process.cpuUsage();
const mainStart = threadTimes((path) => readFileSync(path, 'utf8'));
const progress: Array<{ t: number; records: number; backlogBytes: number; batches: number; p99Ms: number }> = [];
let lastStatus: HistoryStatus | null = null;
let mainHeapMax = 0;
const rssTimer = setInterval(() => {
  mainHeapMax = Math.max(mainHeapMax, process.memoryUsage().heapTotal);
  const mem = procMemory();
  if (mem !== null) rssSamples.push({ t: Math.round(performance.now() - started), rss: mem.rss });
}, 1000);
await service.start();
const statusTimer = setInterval(() => {
  service
    .status()
    .then((s) => {
      lastStatus = s;
      const t = Math.round(performance.now() - started);
      progress.push({ t, records: s.counts.records, backlogBytes: s.backlog.bytes, batches: s.batches.committed, p99Ms: s.batches.p99Ms });
      if (progress.length % 15 === 0) {
        process.stderr.write(`  [${pace}] ${(t / 1000).toFixed(0)} s: ${s.batches.committed} batches, backlog ${(s.backlog.bytes / 2 ** 20).toFixed(0)} MiB\n`);
      }
    })
    .catch(() => undefined);
}, statusMs);

let windowed = false;
let windowTimer: NodeJS.Timeout | null = null;
const finished = service.finished();
const outcome = await Promise.race([
  finished.then((summary) => ({ summary })),
  ...(windowMs > 0
    ? [new Promise<{ summary: null }>((resolve) => (windowTimer = setTimeout(() => resolve({ summary: null }), windowMs)))]
    : []),
]);
let summary: OnceSummary | null = outcome.summary;
if (summary === null) {
  // The window elapsed: stop at the scheduler's next safe point; the committed part is measured.
  windowed = true;
  lastStatus = await service.status().catch(() => lastStatus);
  await service.stop();
  summary = await finished.catch(() => null);
}
const elapsedMs = performance.now() - started;
const cpu = process.cpuUsage(cpuStart);
const mainEnd = threadTimes((path) => readFileSync(path, 'utf8'));
eld.disable();
if (windowTimer !== null) clearTimeout(windowTimer);
clearInterval(statusTimer);
clearInterval(rssTimer);
await service.stop();
const idleAfter = await idleEld(Math.min(idleMs, 3000));
channel.close();

function withoutStatus(s: OnceSummary): Omit<OnceSummary, 'status'> {
  const { status: _status, ...rest } = s;
  return rest;
}

const memory = procMemory();
const commitSummary: Summary = summarize(commits.map((c) => c.ms));
const busy = workerSamples.map((s) => s.elu);
/** CPU and run-queue wait of a thread over the run, from its first and last samples. */
function threadSpan(samples: readonly WorkerSample[]): { cpuMs: number; queueMs: number } | null {
  const first = samples[0];
  const last = samples.at(-1);
  return last === undefined ? null : { cpuMs: last.cpuMs - (first?.cpuMs ?? 0), queueMs: last.queueMs - (first?.queueMs ?? 0) };
}
const result: IngestRunResult = {
  pace,
  windowed,
  elapsedMs,
  /** CPU seconds of every thread of this process during the run. */
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  summary: summary === null ? null : withoutStatus(summary),
  finalStatus: summary?.status ?? lastStatus,
  eld: { resolutionMs: ELD_RESOLUTION_MS, idleBefore, ingest: eldSummary(eld), idleAfter },
  commits: commitSummary,
  commitCpu: summarize(commits.map((c) => c.cpuMs)),
  merges: summarize(merges.map((m) => m.ms)),
  mergeCpu: summarize(merges.map((m) => m.cpuMs)),
  commitQueue: summarize(commits.map((c) => c.queueMs)),
  commitRaw: commits.reduce((n, c) => n + c.rawBytes, 0),
  commitChunks: summarize(commits.map((c) => c.chunks)),
  commitDocs: summarize(commits.map((c) => c.documents)),
  commitSamples: commits.map((c) => [Math.round(c.at), Number(c.ms.toFixed(2)), Number(c.cpuMs.toFixed(2)), Number(c.queueMs.toFixed(2)), c.chunks, c.rawBytes, c.documents] as const),
  workerElu: summarize(busy),
  writerElu: summarize(writerSamples.map((s) => s.elu)),
  threads: {
    main: { cpuMs: mainEnd.cpuMs - mainStart.cpuMs, queueMs: mainEnd.queueMs - mainStart.queueMs },
    worker: threadSpan(workerSamples),
    writer: threadSpan(writerSamples),
  },
  pool: workerSamples.at(-1)?.pool ?? null,
  workerHeapMax: Math.max(0, ...workerSamples.map((s) => s.heapTotal)),
  writerHeapMax: Math.max(0, ...writerSamples.map((s) => s.heapTotal)),
  mainHeapMax,
  peakRss: memory?.hwm ?? process.resourceUsage().maxRSS * 1024,
  rssSamples,
  progress,
};
writeFileSync(values.out, JSON.stringify(result));
process.exit(0);
