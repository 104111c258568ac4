// Checkpoints of history.db's WAL during capture, off the writer thread.
//
// A checkpoint copies committed WAL pages into the database file and syncs
// it. SQLite runs one inside the commit that crosses the autocheckpoint
// size, so on the writer thread the commit waits for the copy and the syncs:
// about a third of the writer thread's wall time went there (issue 14). The
// history worker, which only waits for that commit, checkpoints instead, on
// its own connection and PASSIVE: it copies what is committed, never waits
// for the writer and never holds up its next commit (SQLite lets one
// checkpointer run beside one writer). The writer's own autocheckpoint stays
// as a fallback at a larger size (CAPTURE_FALLBACK_WAL_BYTES): when it comes,
// little is left to copy, and the WAL then starts again from its beginning.
//
// A checkpoint only moves committed pages from one durable file to another;
// a crash in the middle of one loses nothing (SQLite redoes it from the WAL).

import type { Db } from './open.ts';

/** Committed raw bytes between two checkpoints: the WAL grows about twice that (raw bytes, derived text, index). */
export const CHECKPOINT_EVERY_RAW_BYTES = 2 * 1024 * 1024;

export class WalCheckpointer {
  private pending = 0;
  /** Checkpoints run, and those SQLite could not finish because a reader or the writer held pages back. */
  readonly counts = { runs: 0, partial: 0 };

  constructor(
    private readonly db: Db,
    private readonly everyBytes = CHECKPOINT_EVERY_RAW_BYTES,
  ) {}

  /** `rawBytes` more were committed: checkpoint once `everyBytes` have been since the last one. */
  committed(rawBytes: number): void {
    this.pending += rawBytes;
    if (this.pending < this.everyBytes) return;
    this.pending = 0;
    try {
      const [result] = this.db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
      this.counts.runs++;
      if (result !== undefined && result.checkpointed < result.log) this.counts.partial++;
    } catch {
      // Nothing is lost when a checkpoint fails: the pages stay in the WAL and the writer's fallback checkpoints them.
    }
  }
}
