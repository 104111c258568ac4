// The boundary between the broker's thread (HistoryService) and the history
// worker thread (supervisor). Comlink carries these calls; every argument and
// result is structured-clone safe, and errors cross as HistoryErrorShape.

import type { CaptureProgress } from './capture.ts';
import type { HistoryErrorShape } from './errors.ts';
import type { MigrationProgress } from './migration.ts';
import type { ConfigStatus } from './settings.ts';
import type { MirrorStatus } from './mirror.ts';

export type Pace = 'spec' | 'max';

export interface StartOptions {
  /** Environment the worker resolves its paths and switches from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `serve` runs until stopped; `once` runs until no work remains. */
  readonly mode: 'serve' | 'once';
  readonly pace: Pace;
  /** Rebuild derived search data from retained records first (agent-bridge reindex). */
  readonly reindex?: boolean;
  /** Once mode: compare every captured prefix with its file before exiting (ingest --once --verify). */
  readonly verify?: boolean;
}

export type Phase =
  | 'starting'
  /** The elected writer migrates legacy bridge.db history first; ingestion follows. */
  | 'migrating'
  | 'ingesting'
  | 'idle'
  | 'paused'
  /** AGENT_BRIDGE_HISTORY_INGEST switched ingestion off: no worker. */
  | 'disabled'
  /** Another live process is the writer; this one waits to take over. */
  | 'standby'
  | 'stopped'
  | 'failed'
  /** `agent-bridge recover` salvages a damaged history.db; capture resumes on the new store. */
  | 'recovering';

/** disk-full: the last batch found no space for history.db; it is retried every cooldown until there is. */
export type PauseReason = 'pressure' | 'config' | 'cooldown' | 'disk-full';

export interface SourceProblem {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

export interface ReindexStatus {
  readonly phase: 'idle' | 'reset' | 'rebuild';
  readonly requestedAt: number | null;
  /** Records whose documents were rebuilt by the reindex in progress. */
  readonly rebuilt: number;
  /** Request time of the last finished reindex. */
  readonly lastDone: number | null;
}

/**
 * The scrubber (src/ingest/scrubber.ts): what it has proven equal to the
 * files. Sweeps compare every captured prefix with its file; a mismatch
 * starts a new generation of that source.
 */
export interface ScrubStatus {
  /** Its IO pace; 0 when switched off. */
  readonly bytesPerSecond: number;
  /** Complete sweeps over every captured file, and when the last one ended. */
  readonly sweeps: number;
  readonly lastSweepAt: number | null;
  /** The sweep in progress: files and bytes verified so far (of how many files), files found to differ. */
  readonly sweep: { readonly startedAt: number; readonly sources: number; readonly bytes: number; readonly mismatches: number; readonly of: number } | null;
  /** What the last complete sweep verified. */
  readonly lastSweep: { readonly sources: number; readonly bytes: number; readonly mismatches: number } | null;
  /** When the next sweep may start (null while one runs, or when off). */
  readonly nextSweepAt: number | null;
  /** Bytes compared equal so far, over all sweeps. */
  readonly verifiedBytes: number;
  readonly mismatches: number;
  readonly lastMismatch: { readonly source: string; readonly path: string; readonly generation: number; readonly offset: number; readonly at: number } | null;
}

export interface HistoryStatus {
  readonly phase: Phase;
  readonly pausedBy: readonly PauseReason[];
  readonly mode: 'serve' | 'once' | null;
  readonly pace: Pace | null;
  readonly writer: { readonly pid: number | null; readonly self: boolean };
  readonly counts: {
    readonly sources: number;
    readonly conversations: number;
    readonly records: number;
    readonly documents: number;
    readonly rawBytes: number;
  };
  readonly backlog: { readonly sources: number; readonly bytes: number };
  /** The current backlog's captured and found bytes, rate, percentage and ETA (computed here, in the service). */
  readonly capture: CaptureProgress;
  readonly discovery: {
    readonly passes: number;
    readonly running: boolean;
    readonly lastPassAt: number | null;
    /** Symbolic links below the roots, refused (never followed). */
    readonly refusedLinks: number;
    /** Captured files that no longer exist on disk; their bytes stay retained. */
    readonly gone: number;
    /** Entries named like sources that are not regular files (a FIFO, a directory named *.jsonl), skipped; listed in problems. */
    readonly skipped: number;
  };
  readonly watch: { readonly state: string; readonly problem: string | null };
  readonly batches: { readonly committed: number; readonly lastMs: number; readonly p50Ms: number; readonly p99Ms: number };
  readonly malformedLines: number;
  /** The scrubber; null until ingestion runs. */
  readonly scrub: ScrubStatus | null;
  readonly reindex: ReindexStatus;
  readonly problems: readonly SourceProblem[];
  readonly lastError: HistoryErrorShape | null;
  /** The legacy bridge.db → history.db migration (phase, percent, ETA, rows, IO rate, error). */
  readonly migration: MigrationProgress;
  /** Project replicas: phase, placement, every project's state. */
  readonly mirror: MirrorStatus;
  /** The bridge home's config.json as the worker reads it: every error and warning (the last good values stay in force). */
  readonly config: ConfigStatus;
  readonly updatedAt: number;
}

export interface OnceSummary {
  readonly batches: number;
  readonly records: number;
  readonly documents: number;
  /** Documents derived again from retained records by a reindex. */
  readonly reindexedDocuments: number;
  readonly rawBytes: number;
  readonly elapsedMs: number;
  readonly status: HistoryStatus;
}

/** The part of the status `serve` redraws its progress line from (asked every second: it leaves out the costly rest). */
export type ServeProgress = Pick<HistoryStatus, 'phase' | 'pausedBy' | 'backlog' | 'capture' | 'migration'>;

/** What the history worker exposes to HistoryService. */
export interface HistoryWorkerApi {
  start(options: StartOptions): Promise<void>;
  /** Resolves when a `once` run has no work left (rejects with its error). */
  finished(): Promise<OnceSummary>;
  stop(): Promise<void>;
  pressure(active: boolean): void;
  lockError(): void;
  status(): HistoryStatus;
  progress(): ServeProgress;
}
