// FTS5 segment merging in a replica, in bounded steps of the mirror's own.
//
// FTS5 merges segments inside the commit that wrote them ("automerge"): each
// time its write counter passes a multiple of 64 leaf pages, that commit
// also merges 64 pages per level of the index. On a replica that grows by
// a few records per step, that made one step in 30 or so pay for a merge of
// up to a few hundred pages: the mirror step p99 (bench/mirror.ts).
// Replicas therefore keep automerge off (a persistent FTS5 option, set when
// the writer opens one), and the mirror runs the same work as steps of
// their own: `('merge', N)` merges at most about N pages of levels holding
// at least 'usermerge' (4) segments, and continues a partial merge where the
// last one stopped. A project owes merges after every SEGMENTS_PER_MERGE
// copy steps (or a document refresh) until a merge finds nothing left, so
// its index keeps the shape automerge would give it (fewer than 4 segments
// per level); FTS5's crisis merge (16 segments on one level) stays as the
// backstop.

import type { Db } from '../store/open.ts';

/**
 * FTS5's 'usermerge' (its default): a level is merged once it holds this many
 * segments. A copy step adds one segment, so merging can only have work after
 * this many copies (or after a merge that promoted segments, which the merge
 * steps continue until none is left).
 */
export const SEGMENTS_PER_MERGE = 4;

/** Whether `db` has the replica FTS5 index (a replica made without FTS5 has none). */
function hasIndex(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_fts'").get() !== undefined;
}

/** Turn FTS5's merges inside commits off for this replica (a write only when it is not off yet). */
export function holdAutomerge(db: Db): void {
  if (!hasIndex(db)) return;
  const current = db.prepare("SELECT v FROM history_fts_config WHERE k = 'automerge'").pluck().get() as number | undefined;
  if (current === 0) return;
  db.prepare("INSERT INTO history_fts (history_fts, rank) VALUES ('automerge', 0)").run();
}

/**
 * One bounded merge of the replica's FTS5 segments (at most about `pages`
 * pages written), in its own transaction. Returns whether there was work:
 * FTS5 changes at least two rows when it merged anything (its documented
 * test), so false means the index is as merged as it is kept.
 */
export function mergeStep(db: Db, pages: number): boolean {
  if (!hasIndex(db)) return false;
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  const merge = db.prepare("INSERT INTO history_fts (history_fts, rank) VALUES ('merge', ?)");
  let worked = false;
  db.transaction(() => {
    const before = totalChanges.get() as number;
    merge.run(pages);
    worked = (totalChanges.get() as number) - before >= 2;
  }).immediate();
  return worked;
}
