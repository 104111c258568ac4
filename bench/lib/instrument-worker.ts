// Entry of the history worker thread under the bench: the product's own
// actors/history-worker.ts, with measuring wrappers installed first:
// - the writer thread it starts runs bench/lib/instrument-writer.ts first,
//   which times every `commit` and `mergeIndex` message to the history actor;
// - the parser pool (piscina) is captured to report its run/wait times;
// - this thread's event-loop utilization, CPU and heap, every second.
// Samples go to the bench's main thread over a BroadcastChannel; nothing of
// the product's behaviour changes.

import { readFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type * as WorkerThreads from 'node:worker_threads';
import { BroadcastChannel, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { Piscina } from 'piscina';
import { BENCH_CHANNEL, threadTimes, type WorkerSample } from './instrument-worker-channel.ts';

const times = (): { cpuMs: number; queueMs: number } => threadTimes((path) => readFileSync(path, 'utf8'));

const channel = new BroadcastChannel(BENCH_CHANNEL);
channel.unref();
let pool: Piscina | null = null;

const originalRun = Piscina.prototype.run;
Piscina.prototype.run = function run(this: Piscina, ...args: Parameters<typeof originalRun>) {
  pool ??= this;
  return originalRun.apply(this, args);
};

// The writer thread starts from bench/lib/instrument-writer.ts, which then imports the real entry.
const threads = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
const OriginalWorker = threads.Worker;
class InstrumentedWorker extends OriginalWorker {
  constructor(filename: string | URL, options?: WorkerThreads.WorkerOptions) {
    const data = options?.workerData as { entry?: unknown } | undefined;
    if (typeof data?.entry === 'string' && /\/actors\/writer-worker\.[jt]s$/.test(data.entry)) {
      options = { ...options, workerData: { ...data, entry: new URL('./instrument-writer.ts', import.meta.url).href, realEntry: data.entry } };
    }
    super(filename, options);
  }
}
(threads as { Worker: unknown }).Worker = InstrumentedWorker;
syncBuiltinESMExports();

let lastElu = performance.eventLoopUtilization();
setInterval(() => {
  const now = performance.eventLoopUtilization();
  const delta = performance.eventLoopUtilization(now, lastElu);
  lastElu = now;
  const h = pool?.histogram;
  const heap = getHeapStatistics();
  const sample: WorkerSample = {
    kind: 'worker',
    thread: 'worker',
    at: Date.now(),
    elu: delta.utilization,
    heapUsed: heap.used_heap_size,
    ...times(),
    heapTotal: heap.total_heap_size,
    pool:
      pool === null || h === undefined
        ? null
        : {
            completed: pool.completed,
            utilization: pool.utilization,
            runMeanMs: h.runTime.mean,
            runP99Ms: h.runTime.p99,
            waitMeanMs: h.waitTime.mean,
            waitP99Ms: h.waitTime.p99,
          },
  };
  channel.postMessage(sample);
}, 1000).unref();

await import((workerData as { realEntry: string }).realEntry);
