// What bench/lib/instrument-worker.ts (in the history worker thread) and
// bench/lib/instrument-writer.ts (in the writer thread) send to the bench's
// main thread. Kept apart so the main thread can import it
// without loading the instrumented worker entry itself.

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { BroadcastChannel } from 'node:worker_threads';

export const BENCH_CHANNEL = 'agent-bridge-bench';

export interface CommitSample {
  readonly kind: 'commit';
  readonly at: number;
  readonly ms: number;
  /** Of `ms`: on a CPU, and runnable but waiting for one (Linux schedstat of this thread); the rest was blocked (I/O). */
  readonly cpuMs: number;
  readonly queueMs: number;
  readonly chunks: number;
  /** The file sources of the chunks, in chunk order, each once. */
  readonly sources: readonly string[];
  /** The largest chunk. */
  readonly maxChunkBytes: number;
  readonly rawBytes: number;
  readonly records: number;
  readonly documents: number;
  readonly bodyBytes: number;
}

/** One mergeIndex message (the FTS5 merge steps between batches): a write transaction of its own. */
export interface MergeSample {
  readonly kind: 'merge';
  readonly ms: number;
  readonly cpuMs: number;
}

/** One mirror step (bench/lib/instrument-mirror-worker.ts). */
export interface MirrorStepSample {
  readonly kind: 'mirror';
  readonly at: number;
  /** The synchronous check and copy units (what holds the worker thread). */
  readonly syncMs: number;
  /** The whole step, including project preparation (Git runs in child processes). */
  readonly wallMs: number;
  readonly copied: number;
  readonly checked: number;
}

/** One second of a thread: the history worker, or the writer thread it starts. */
export interface WorkerSample {
  readonly kind: 'worker';
  readonly thread: 'worker' | 'writer';
  readonly at: number;
  /** Event-loop utilization of the thread since the previous sample. */
  readonly elu: number;
  /** V8 heap of the thread (bytes). */
  readonly heapUsed: number;
  /** Cumulative CPU and run-queue time of the thread (ms). */
  readonly cpuMs: number;
  readonly queueMs: number;
  readonly heapTotal: number;
  readonly pool: {
    readonly completed: number;
    readonly utilization: number;
    readonly runMeanMs: number;
    readonly runP99Ms: number;
    readonly waitMeanMs: number;
    readonly waitP99Ms: number;
  } | null;
}

/** Every second, this thread's event-loop utilization, CPU and heap, as a WorkerSample on `channel`; `pool`: the parser pool's figures. */
export function sampleThread(channel: BroadcastChannel, thread: WorkerSample['thread'], pool: () => WorkerSample['pool'] = () => null): void {
  let lastElu = performance.eventLoopUtilization();
  setInterval(() => {
    const now = performance.eventLoopUtilization();
    const delta = performance.eventLoopUtilization(now, lastElu);
    lastElu = now;
    const heap = getHeapStatistics();
    const times = threadTimes((path) => readFileSync(path, 'utf8'));
    const sample: WorkerSample = { kind: 'worker', thread, at: Date.now(), elu: delta.utilization, heapUsed: heap.used_heap_size, ...times, heapTotal: heap.total_heap_size, pool: pool() };
    channel.postMessage(sample);
  }, 1000).unref();
}

/** CPU and run-queue wait of the calling thread, in ms (Linux /proc/thread-self/schedstat; zeros elsewhere). */
export function threadTimes(read: (path: string) => string): { cpuMs: number; queueMs: number } {
  try {
    const [cpu, queue] = read('/proc/thread-self/schedstat').trim().split(/\s+/).map(Number);
    return { cpuMs: (cpu ?? 0) / 1e6, queueMs: (queue ?? 0) / 1e6 };
  } catch {
    return { cpuMs: 0, queueMs: 0 };
  }
}
