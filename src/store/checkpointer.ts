// Checkpoints of history.db's WAL during capture, off the writer thread.
//
// A checkpoint copies committed WAL pages into the database file and syncs
// it. SQLite runs one inside the commit that crosses the autocheckpoint
// size, so on the writer thread the commit waits for the copy and the syncs:
// about a third of the writer thread's wall time went there (issue 14). The
// history worker, which only waits for that commit, checkpoints instead, on
// its own connection and PASSIVE: it copies what is committed, never waits
// for the writer and never holds up its next commit (SQLite lets one
// checkpointer run beside one writer). It looks once per turn of capture's
// loop, so every write counts (commits, FTS5 merge steps, reindex steps),
// and when the loop has nothing to capture it copies whatever is left, so an
// idle store has its WAL copied and synced. The writer's own autocheckpoint
// stays as a fallback at a larger size (CAPTURE_FALLBACK_WAL_BYTES in
// actors/writer-worker.ts): when it comes, little is left to copy, and the
// WAL then starts again from its beginning.
//
// A checkpoint only moves committed pages from one durable file to another;
// a crash in the middle of one loses nothing (SQLite redoes it from the WAL).

import { CHECKPOINT_WAL_BYTES, type Db } from './open.ts';

export interface CheckpointRow {
  readonly busy: number;
  /** Frames in the WAL (-1 when the checkpoint could not run). */
  readonly log: number;
  /** Frames of it already copied into the database file. */
  readonly checkpointed: number;
}

export class WalCheckpointer {
  private readonly pageBytes: number;

  constructor(
    private readonly db: Db,
    private readonly everyBytes = CHECKPOINT_WAL_BYTES,
  ) {
    this.pageBytes = db.pragma('page_size', { simple: true }) as number;
  }

  /**
   * Once per turn: checkpoint when `everyBytes` of WAL wait to be copied, or,
   * `idle`, when any do. Returns the checkpoint's result when one ran, else null.
   */
  step(idle: boolean): CheckpointRow | null {
    try {
      // NOOP copies nothing: it reads how many frames are in the WAL and how many are copied.
      const [seen] = this.db.pragma('main.wal_checkpoint(NOOP)') as CheckpointRow[];
      if (seen === undefined || seen.log < 0) return null;
      const waiting = (seen.log - seen.checkpointed) * this.pageBytes;
      if (waiting <= 0 || (!idle && waiting < this.everyBytes)) return null;
      return (this.db.pragma('main.wal_checkpoint(PASSIVE)') as CheckpointRow[])[0] ?? null;
    } catch {
      // Nothing is lost when a checkpoint fails: the pages stay in the WAL and the writer's fallback checkpoints them.
      return null;
    }
  }
}
