// FTS5 segment merging in bounded steps of our own, for history.db and for
// project replicas.
//
// FTS5 merges segments inside the commit that wrote them ("automerge"): each
// time its write counter passes a multiple of 64 leaf pages, that commit
// also merges 64 pages per level of the index. So now and then one commit
// paid for a merge of a few hundred pages: the capture batch p99 and the
// mirror step p99 (bench/ingest.ts, bench/mirror.ts). Our stores therefore
// keep automerge off (a persistent FTS5 option: a replica's writer sets it
// when it opens one, history.db's writer when the capture loop first asks
// it to merge), and the same work runs as steps of its own, between batches:
// `('merge', N)` merges at most about N pages of levels holding at least
// 'usermerge' (4) segments, and continues a partial merge where the last one
// stopped. Whoever writes the index owes merges after writing segments until
// a merge finds nothing left, so the index keeps the shape automerge would
// give it (fewer than 4 segments per level); FTS5's crisis merge (16
// segments on one level) stays as the backstop.

import type { Statement } from 'better-sqlite3';
import type { Db } from './open.ts';

/**
 * FTS5's 'usermerge' (its default): a level is merged once it holds this many
 * segments. A replica's copy step adds one segment, so merging can only have
 * work after this many copies (or after a merge that promoted segments, which
 * the merge steps continue until none is left).
 */
export const SEGMENTS_PER_MERGE = 4;

/** Whether `db` has the FTS5 index (a store made without FTS5 has none). */
function hasIndex(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_fts'").get() !== undefined;
}

/** Turn FTS5's merges inside commits off for this store (a write only when it is not off yet). */
export function holdAutomerge(db: Db): void {
  if (!hasIndex(db)) return;
  const current = db.prepare("SELECT v FROM history_fts_config WHERE k = 'automerge'").pluck().get() as number | undefined;
  if (current === 0) return;
  db.prepare("INSERT INTO history_fts (history_fts, rank) VALUES ('automerge', 0)").run();
}

/**
 * Bounded merges of one connection's FTS5 index, its statements prepared
 * once (a store made without FTS5 has nothing to merge).
 */
export class FtsMerger {
  private readonly merge: Statement | null;
  private readonly totalChanges: Statement;

  constructor(private readonly db: Db) {
    this.merge = hasIndex(db) ? db.prepare("INSERT INTO history_fts (history_fts, rank) VALUES ('merge', ?)") : null;
    this.totalChanges = db.prepare('SELECT total_changes()').pluck();
  }

  /**
   * One merge of at most about `pages` pages written, in its own
   * transaction. Returns whether there was work: FTS5 changes at least two
   * rows when it merged anything (its documented test), so false means the
   * index is as merged as it is kept.
   */
  private step(pages: number): boolean {
    const merge = this.merge;
    if (merge === null) return false;
    let worked = false;
    this.db
      .transaction(() => {
        const before = this.totalChanges.get() as number;
        merge.run(pages);
        worked = (this.totalChanges.get() as number) - before >= 2;
      })
      .immediate();
    return worked;
  }

  /**
   * Merges of about `pages` pages while they find work, until `budgetMs` has
   * passed (the first runs whatever the time). Returns whether work may
   * remain (the last merge found some).
   */
  run(pages: number, budgetMs: number): boolean {
    const started = performance.now();
    let worked: boolean;
    do worked = this.step(pages);
    while (worked && performance.now() - started < budgetMs);
    return worked;
  }
}
