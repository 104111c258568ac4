// What bench/lib/instrument-worker.ts (in the history worker thread) sends to
// the bench's main thread. Kept apart so the main thread can import it
// without loading the instrumented worker entry itself.

export const BENCH_CHANNEL = 'agent-bridge-bench';

export interface CommitSample {
  readonly kind: 'commit';
  readonly at: number;
  readonly ms: number;
  readonly chunks: number;
  readonly rawBytes: number;
  readonly records: number;
  readonly documents: number;
  readonly bodyBytes: number;
}

export interface WorkerSample {
  readonly kind: 'worker';
  readonly at: number;
  /** Event-loop utilization of the history worker thread since the previous sample. */
  readonly elu: number;
  /** V8 heap of the history worker thread (bytes). */
  readonly heapUsed: number;
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
