// Messages of the migrator actor (legacy bridge.db history → history.db,
// specification "Lossless split migration (AB-167)") and the progress object
// that status shows everywhere (service status, `agent-bridge status`, later
// the dashboard).

import type { HistoryErrorShape } from './errors.ts';

/** The four passes, in order. */
export const MIGRATION_PASSES = ['snapshot', 'snapshot-verify', 'copy', 'verify'] as const;
export type MigrationPass = (typeof MIGRATION_PASSES)[number];

export type MigrationPhase =
  /** Not begun yet (no writer has looked at this home). */
  | 'starting'
  | MigrationPass
  /** Waiting out broker pressure (or a transient error) inside `pass`. */
  | 'paused'
  /** Latched: a data disagreement; only `agent-bridge reindex --retry` resumes. */
  | 'failed'
  /** history.db holds the verified copy; readers use it. */
  | 'verified';

export interface MigrationTail {
  /** Legacy records appended after the snapshot and copied since (this run). */
  readonly replayed: number;
  /** Of those, how many got a new id because theirs was taken. */
  readonly remapped: number;
  /** A tail record that disagrees with what history.db holds (deferred, both kept). */
  readonly conflict: HistoryErrorShape | null;
}

export interface MigrationProgress {
  readonly phase: MigrationPhase;
  /** The pass being run (or paused in); null before the first and once verified. */
  readonly pass: MigrationPass | null;
  /** Overall completion over the four passes, 0..100 (100 only when verified). */
  readonly percent: number;
  /** Estimated seconds remaining; null until a rate is known. */
  readonly etaSeconds: number | null;
  /** Rows done in the current pass, and the rows that pass covers. */
  readonly rowsDone: number;
  readonly rowsTotal: number;
  /** Measured payload IO over the last seconds (reads, writes and checks). */
  readonly ioBytesPerSecond: number;
  /** The configured pace; null when unpaced (pace max). */
  readonly ioLimitBytesPerSecond: number | null;
  /** Payload IO counted since this process started migrating (reads, writes and checks). */
  readonly ioBytes: number;
  /**
   * Time of the synchronous migration units (the chunks that share one commit,
   * run between two yields; commits included), over the last 1000 units (ms).
   */
  readonly chunkMs: { readonly last: number; readonly p50: number; readonly p99: number; readonly max: number };
  /** Why the migration waits, when it does: broker pressure, config.json `history.ingest: false`, or a transient error's cooldown. */
  readonly pausedBy: 'pressure' | 'config' | 'retry' | null;
  /** The pinned bridge.db read view was released under sustained pressure (resumes with the same snapshot file). */
  readonly sourceReleased: boolean;
  /** `<home>/.migration-snapshots/bridge-history-v1-<uuid>.db`, once chosen. */
  readonly snapshot: string | null;
  readonly error: HistoryErrorShape | null;
  readonly tail: MigrationTail;
  readonly updatedAt: number;
}

export type MigratorMessage =
  /** Run or resume the migration until verified; resolves with the final progress (failed when latched). */
  | { readonly type: 'run' }
  /** Broker request pressure: pause at the next chunk boundary (true) or resume (false). */
  | { readonly type: 'pressure'; readonly active: boolean }
  | { readonly type: 'progress' };

export interface TailBatch {
  readonly replayed: number;
  readonly remapped: number;
  /** More legacy records wait beyond this batch. */
  readonly more: boolean;
}

export interface MigratorReplies {
  run: Promise<MigrationProgress>;
  pressure: void;
  progress: MigrationProgress;
}
