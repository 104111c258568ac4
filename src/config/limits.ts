// Every bound and cadence of background work, in one place (specification,
// "Bounded background work"). Nothing else in the code base hard-codes these.

export interface Limits {
  /** Largest source read and largest retained chunk. */
  readonly chunkBytes: number;
  /** File sources read per batch. */
  readonly sourcesPerBatch: number;
  /** Derived text per batch; the record that crosses it is still included. */
  readonly batchBodyBytes: number;
  /**
   * Raw bytes per batch (the chunk that crosses it is still included): about
   * one 64 KiB chunk per source. Keeps a write transaction short: with 1 MiB
   * batches the writer's p99 was 127 ms, with 128 KiB 41 ms, at higher
   * throughput (bench/ingest.ts, figures in the README).
   */
  readonly batchRawBytes: number;
  /** Chunks a source may have read and parsed ahead of the writer. */
  readonly readAheadChunks: number;
  /**
   * Batches sent to the writer thread whose commit has not been settled. With
   * two, the next batch waits in the writer thread's queue while the history
   * worker settles the one before and gathers more, so the writer thread does
   * not idle between commits.
   */
  readonly batchesInFlight: number;
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
  /**
   * Discovery steps a serve loop turn runs when nothing else is pending and a
   * pass has completed since start (a background pass: the watch and the poll
   * already see changes of known files); the turn then sleeps idlePollMs, so
   * an idle service walks at most this many steps per idle interval, however
   * many sources there are.
   */
  readonly discoveryIdleSteps: number;
  /**
   * Registered files re-examined (stat) per idle poll, round robin over all
   * of them, for changes no watch event reported. The watch sees nearly every
   * change; this is the fallback, kept small so that it costs the same
   * however many sources there are.
   */
  readonly pollStatsPerTick: number;
  /**
   * Files whose last observed change is younger than pollRecentMs (the
   * sessions in use) are also stat'ed at every idle poll, at most
   * pollRecentStats of them: a change the watch missed in a live session is
   * seen within one poll, not one round of the whole table.
   */
  readonly pollRecentMs: number;
  readonly pollRecentStats: number;
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
  /** Legacy migration chunk: at most this many rows ... */
  readonly migrationChunkRows: number;
  /** ... this many payload bytes (a single row may exceed) ... */
  readonly migrationChunkBytes: number;
  /** ... and this much elapsed reading time (at least one row). */
  readonly migrationChunkMs: number;
  /**
   * Time budget of one migration unit: the chunks that share one commit and
   * run between two yields, their commits included (the first chunk always runs).
   */
  readonly migrationUnitMs: number;
  /** Migration payload IO pace (reads, writes and chunk checks counted); config/env may change it. */
  readonly migrationIoBytesPerSecond: number;
  /** Catch-up allowed to the migration pace (ms of IO at that pace): a bounded burst after slow stretches or pauses. */
  readonly migrationIoBurstMs: number;
  /** Pressure this long while the bridge.db read view is pinned releases the view. */
  readonly migrationReleaseAfterMs: number;
  /** How often a paused migration looks at the pressure again. */
  readonly migrationPausePollMs: number;
  /** Legacy tail replay cadence once the migration is verified (serve mode). */
  readonly migrationTailIntervalMs: number;
  /**
   * V8 young generation of the service's threads (MiB): the writer, parser
   * and reader threads. The default (about 48 MiB per thread) is mostly
   * garbage between scavenges; capping it keeps the ingesting process's peak
   * RSS down at no measured CPU cost (bench/ingest.ts). 4 MiB for every
   * thread cost capture 6-13 % of its time (the writer thread is its critical
   * path), so only the history worker has less (below).
   */
  readonly workerYoungGenerationMb: number;
  /**
   * The history worker's young generation (MiB). It has time to spare while
   * the writer thread commits, and its scavenges are cheap: at 4 MiB the
   * 9,000-session capture peaked 3-11 MiB lower in the same time (README,
   * Benchmarks).
   */
  readonly historyWorkerYoungGenerationMb: number;
  /** How often a settings watcher (settings --watch, serve's config report) looks at the config files: one stat each. */
  readonly configPollMs: number;
  /** How long a resolved project root is reused before the Git layout is looked at again. */
  readonly projectRootTtlMs: number;
  /**
   * The scrubber's IO pace while idle (file and store bytes counted, plus
   * scrubSourceCostBytes per file visited); environment may change it, 0
   * switches it off. See src/ingest/scrubber.ts.
   */
  readonly scrubBytesPerSecond: number;
  /** Catch-up allowed to the scrubber (ms of IO at its pace) after a busy stretch. */
  readonly scrubBurstMs: number;
  /** A new sweep starts this long after the previous one started (environment may change it). */
  readonly scrubSweepIntervalMs: number;
  /** Files one scrub step visits at most, however small they are. */
  readonly scrubSourcesPerStep: number;
  /** What a visit costs the scrubber's budget beyond its bytes (open, stat, queries). */
  readonly scrubSourceCostBytes: number;
  /** Windows of the captured prefix compared with the file each time a changed file is opened. */
  readonly spotChecks: number;
  readonly spotCheckBytes: number;
  /** Project mirrors: raw records copied per step (specification: eight) ... */
  readonly mirrorRecordsPerStep: number;
  /** ... and metadata ids (conversations, projects) checked per step (32). */
  readonly mirrorIdsPerStep: number;
  /**
   * ... and the bytes (raw plus body) of the records a step copies: it stops
   * adding records once they reach this, allowing one record to cross it (as
   * capture's batchBodyBytes). A record is up to a 64 KiB chunk: eight of
   * them with their documents' FTS inserts made steps of 150-300 ms
   * (bench/mirror.ts); a step's latency follows its bytes, not its count.
   */
  readonly mirrorStepBytes: number;
  /**
   * FTS5 pages one merge writes at most (about), and how long a merge step
   * goes on merging while merges find work (its first merge runs whatever the
   * time): history.db and replicas merge their index in steps of their own
   * between batches, not inside the commits (src/store/fts-merge.ts). One
   * merge per step made three times as many mirror steps as copies, and
   * every step costs the service loop a turn.
   */
  readonly ftsMergePages: number;
  readonly ftsMergeMs: number;
  /**
   * FTS5 pages one of capture's merge steps of history.db writes (about).
   * Every step is a transaction that also rewrites FTS5's structure record
   * and a trimmed first leaf of each segment it merges, so fewer, larger
   * steps write less for the same merge. A 256 MiB capture's WAL, attributed
   * by page with checkpoints held off: 2,566 MiB with steps of 64 pages
   * (525 merge commits), 2,064 MiB with 256 (133), 1,936 MiB with 1,024
   * (43). The same batches on one thread (bench/ingest.ts --variants
   * writer-merged): merging took 20.9 and 23.9 s with 64, 17.9 and 17.2 s
   * with 256, 15.3 and 16.5 s with 1,024, whose steps took up to 95 ms (p99
   * 62-67 ms). The steps run on the writer thread between commits (no batch
   * waits inside one, and the broker's thread never waits for them); the
   * migration's copy and the replicas, whose steps are bounded in time, keep
   * ftsMergePages.
   */
  readonly captureMergePages: number;
  /** A deferred or refused project is tried again this long after. */
  readonly mirrorRecheckMs: number;
  /** A project whose folder is absent is looked for again after mirrorRecheckMs, doubling each time up to this. */
  readonly mirrorAbsentRecheckMaxMs: number;
  /** How often `serve` looks whether a synced replica is still there (the owner may delete it). */
  readonly mirrorVerifyMs: number;
  /** Replica connections kept open at once (the least recently used is closed). */
  readonly mirrorOpenReplicas: number;
  /** Time one step may spend preparing projects (Git exclusion, folders; at least one project). */
  readonly mirrorPrepareBudgetMs: number;
  /**
   * While capture has a backlog, the largest share of the loop's recent wall
   * time mirror steps may take. A replica's FTS inserts cost what capture's
   * do, so a mirror stepping after every batch halved capture (bench/mirror.ts).
   * At 0.15 capture kept only 0.76 of its speed alone (steps cost more than
   * their own time: page cache and disk shared with capture), so 0.10; the
   * replicas catch up once capture has.
   */
  readonly mirrorCaptureShare: number;
}

export const LIMITS: Limits = {
  chunkBytes: 64 * 1024,
  sourcesPerBatch: 2,
  batchBodyBytes: 512 * 1024,
  batchRawBytes: 128 * 1024,
  readAheadChunks: 8,
  batchesInFlight: 2,
  sourceTurnBatches: 32,
  backlogIntervalMs: 100,
  idlePollMs: 2000,
  discoveryRevisitMs: 30_000,
  discoveryStepEntries: 32,
  discoveryIdleSteps: 32,
  pollStatsPerTick: 32,
  pollRecentMs: 3_600_000,
  pollRecentStats: 64,
  cooldownMs: 5000,
  busyRetryMs: 250,
  headerCacheEntries: 2048,
  settleMs: 2000,
  watchDirtyMax: 2048,
  migrationChunkRows: 32,
  migrationChunkBytes: 512 * 1024,
  migrationChunkMs: 50,
  migrationUnitMs: 40,
  migrationIoBytesPerSecond: 8 * 1024 * 1024,
  migrationIoBurstMs: 1000,
  migrationReleaseAfterMs: 2000,
  migrationPausePollMs: 100,
  migrationTailIntervalMs: 2000,
  configPollMs: 2000,
  projectRootTtlMs: 2000,
  workerYoungGenerationMb: 8,
  historyWorkerYoungGenerationMb: 4,
  scrubBytesPerSecond: 4 * 1024 * 1024,
  scrubBurstMs: 2000,
  scrubSweepIntervalMs: 60 * 60 * 1000,
  scrubSourcesPerStep: 64,
  scrubSourceCostBytes: 4096,
  spotChecks: 2,
  spotCheckBytes: 4096,
  mirrorRecordsPerStep: 8,
  mirrorIdsPerStep: 32,
  mirrorStepBytes: 64 * 1024,
  ftsMergePages: 64,
  ftsMergeMs: 6,
  captureMergePages: 1024,
  mirrorRecheckMs: 5000,
  mirrorAbsentRecheckMaxMs: 300_000,
  mirrorVerifyMs: 30_000,
  mirrorOpenReplicas: 32,
  mirrorPrepareBudgetMs: 20,
  mirrorCaptureShare: 0.1,
};

/** Accepted scrubber paces from the environment (0 switches the scrubber off), bytes per second. */
export const SCRUB_RATE_RANGE = { min: 64 * 1024, max: 256 * 1024 * 1024 } as const;

/** Accepted migration IO paces (config and environment), bytes per second. */
export const MIGRATION_IO_RANGE = { min: 64 * 1024, max: 256 * 1024 * 1024 } as const;

/** `spec` keeps the cadence above; `max` keeps every cap but drops the waits. */
export type Pace = 'spec' | 'max';
