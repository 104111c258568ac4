// The JSON each bench child writes, shared by the children and bench/ingest.ts.

import type { HistoryStatus, OnceSummary, Pace } from '../../protocols/service.ts';
import type { WorkerSample } from './instrument-worker-channel.ts';
import type { Summary } from './stats.ts';
import type { VariantResult } from './store-variants.ts';

export interface EldSummary {
  /** Milliseconds beyond the sampling interval (the histogram's values minus its resolution). */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
  readonly count: number;
}

export interface IngestRunResult {
  readonly pace: Pace;
  /** The run was stopped at --window-s before it finished. */
  readonly windowed: boolean;
  readonly elapsedMs: number;
  /** CPU seconds of every thread of the ingesting process during the run. */
  readonly cpuSeconds: number;
  readonly summary: Omit<OnceSummary, 'status'> | null;
  readonly finalStatus: HistoryStatus | null;
  readonly eld: { readonly resolutionMs: number; readonly idleBefore: EldSummary; readonly ingest: EldSummary; readonly idleAfter: EldSummary };
  /** Every writer batch (commit message), instrumented. */
  readonly commits: Summary;
  /** The same batches: CPU time and run-queue wait of the writer thread inside each. */
  readonly commitCpu: Summary;
  readonly commitQueue: Summary;
  /** Every mergeIndex message (FTS5 merge steps between batches, each a write transaction): wall and CPU. Absent in older results. */
  readonly merges?: Summary;
  readonly mergeCpu?: Summary;
  readonly commitRaw: number;
  readonly commitChunks: Summary;
  readonly commitDocs: Summary;
  /** [epoch ms, ms, cpu ms, queue ms, chunks, raw bytes, documents] per batch. */
  readonly commitSamples: ReadonlyArray<readonly [number, number, number, number, number, number, number]>;
  /** History worker thread event-loop utilization, one sample a second. */
  readonly workerElu: Summary;
  /** The same of the writer thread (absent in results from before it). */
  readonly writerElu?: Summary;
  /** Whole-run CPU and run-queue wait (ms) of the main (broker) thread, the history worker thread and the writer thread. */
  readonly threads: {
    readonly main: { cpuMs: number; queueMs: number };
    readonly worker: { cpuMs: number; queueMs: number } | null;
    readonly writer?: { cpuMs: number; queueMs: number } | null;
  };
  readonly pool: WorkerSample['pool'];
  /** Largest V8 heap of the history worker thread and of the main thread (bytes). */
  readonly workerHeapMax: number;
  readonly writerHeapMax?: number;
  readonly mainHeapMax: number;
  /** VmHWM of the ingesting process (all its threads). */
  readonly peakRss: number;
  readonly rssSamples: ReadonlyArray<{ t: number; rss: number }>;
  readonly progress: ReadonlyArray<{ t: number; records: number; backlogBytes: number; batches: number; p99Ms: number }>;
}

export interface StoreRunResult {
  readonly files: number;
  readonly chunks: number;
  readonly rawBytes: number;
  readonly documents: number;
  readonly textChars: number;
  readonly parseMs: number;
  readonly readMs: number;
  readonly deriveSeconds: number;
  readonly results: VariantResult[];
}
