// Every bound and cadence of background work, in one place (specification,
// "Bounded background work"). Nothing else in the code base hard-codes these.

export interface Limits {
  /** Largest source read and largest retained chunk. */
  readonly chunkBytes: number;
  /** File sources read per batch. */
  readonly sourcesPerBatch: number;
  /** Derived text per batch; the record that crosses it is still included. */
  readonly batchBodyBytes: number;
  /** Raw bytes per batch; keeps a write transaction short. */
  readonly batchRawBytes: number;
  /** Chunks a source may have read and parsed ahead of the writer. */
  readonly readAheadChunks: number;
  /** Consecutive batches one source may take before others get a turn. */
  readonly sourceTurnBatches: number;
  /** Delay between batches while a backlog remains (pace "spec"). */
  readonly backlogIntervalMs: number;
  /** Delay between polls when nothing is pending. */
  readonly idlePollMs: number;
  /** How often discovery walks the roots again. */
  readonly discoveryRevisitMs: number;
  /** Directory entries (and OpenCode sessions) per discovery step. */
  readonly discoveryStepEntries: number;
  /** Registered files re-examined (stat) per poll when no watch event arrives. */
  readonly pollStatsPerTick: number;
  /** Pause after a lock error or an unexpected failure. */
  readonly cooldownMs: number;
  /** Retry delay after SQLite contention. */
  readonly busyRetryMs: number;
  /** Headers cached by file identity. */
  readonly headerCacheEntries: number;
  /** An unfinished last line is captured once the file has been quiet this long. */
  readonly settleMs: number;
  /** Watch events remembered before falling back to polling only. */
  readonly watchDirtyMax: number;
  /**
   * V8 young generation of the history worker and parser threads (MiB). The
   * default (about 48 MiB per thread) is mostly garbage between scavenges;
   * capping it keeps the ingesting process's peak RSS well under 300 MiB at
   * no measured CPU cost (bench/ingest.ts).
   */
  readonly workerYoungGenerationMb: number;
}

export const LIMITS: Limits = {
  chunkBytes: 64 * 1024,
  sourcesPerBatch: 2,
  batchBodyBytes: 512 * 1024,
  batchRawBytes: 1024 * 1024,
  readAheadChunks: 8,
  sourceTurnBatches: 32,
  backlogIntervalMs: 100,
  idlePollMs: 2000,
  discoveryRevisitMs: 30_000,
  discoveryStepEntries: 32,
  pollStatsPerTick: 256,
  cooldownMs: 5000,
  busyRetryMs: 250,
  headerCacheEntries: 2048,
  settleMs: 2000,
  watchDirtyMax: 2048,
  workerYoungGenerationMb: 8,
};

/** `spec` keeps the cadence above; `max` keeps every cap but drops the waits. */
export type Pace = 'spec' | 'max';
