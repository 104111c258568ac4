// Entry of the history worker thread under the bench: the product's own
// actors/history-worker.ts, with measuring wrappers installed first:
// - the writer thread it starts runs bench/lib/instrument-writer.ts first,
//   which times every `commit` and `mergeIndex` message to the history actor;
// - the parser pool (piscina) is captured to report its run/wait times;
// - this thread's event-loop utilization, CPU and heap, every second.
// Samples go to the bench's main thread over a BroadcastChannel; nothing of
// the product's behaviour changes.

import { BroadcastChannel, workerData } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { BENCH_CHANNEL, sampleThread } from './instrument-worker-channel.ts';
import { redirectThreads } from './instrumented-service.ts';

const channel = new BroadcastChannel(BENCH_CHANNEL);
channel.unref();
let pool: Piscina | null = null;

const originalRun = Piscina.prototype.run;
Piscina.prototype.run = function run(this: Piscina, ...args: Parameters<typeof originalRun>) {
  pool ??= this;
  return originalRun.apply(this, args);
};

// The writer thread starts from bench/lib/instrument-writer.ts, which then imports the real entry.
redirectThreads(/\/actors\/writer-worker\.[jt]s$/, new URL('./instrument-writer.ts', import.meta.url).href);

sampleThread(channel, 'worker', () => {
  const h = pool?.histogram;
  return pool === null || h === undefined
    ? null
    : {
        completed: pool.completed,
        utilization: pool.utilization,
        runMeanMs: h.runTime.mean,
        runP99Ms: h.runTime.p99,
        waitMeanMs: h.waitTime.mean,
        waitP99Ms: h.waitTime.p99,
      };
});

await import((workerData as { realEntry: string }).realEntry);
