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
// 'usermerge' segments, and continues a partial merge where the last one
// stopped. Whoever writes the index owes merges after writing segments until
// a merge finds nothing left.
//
// How many segments a level gathers before it is merged (the fanout) sets
// what merging costs: every merge rewrites what the level holds, so a byte
// is rewritten about once per level, and levels number log_fanout(segments).
// history.db merges at a fanout of 16 while capture has a backlog (about
// 3 levels for a 1 GiB capture of 5,000 batches, against 6 at 4: merging
// fell from 33 s to 20-21 s of a single-thread capture, bench/ingest.ts
// --variants writer-merged-4,writer-merged), and at FTS5's default of 4 once
// capture is idle, which then merges what the backlog left into fewer
// segments than merging at 4 all along gives (2 against 10 on that capture,
// in 2.2-2.4 s), so searches afterwards are as fast. Replicas merge at 4 (their steps are
// small and interleaved with capture). FTS5's crisis merge (a level reaching
// 'crisismerge' segments is merged inside the commit that adds one) stays as
// the backstop, above the backlog's fanout.
import type { Statement } from 'better-sqlite3';
import type { Db } from './open.ts';

/**
 * FTS5's 'usermerge' (its default): a level is merged once it holds this many
 * segments. A replica's copy step adds one segment, so merging can only have
 * work after this many copies (or after a merge that promoted segments, which
 * the merge steps continue until none is left).
 */
export const SEGMENTS_PER_MERGE = 4;

/** The fanout while capture has a backlog: FTS5's largest 'usermerge'. */
export const BACKLOG_SEGMENTS_PER_MERGE = 16;

/**
 * FTS5's 'crisismerge' in stores that merge at the backlog's fanout: above it,
 * so a level waiting for its merge step is not merged inside a commit first
 * (FTS5's default, 16, equals that fanout).
 */
export const CRISIS_SEGMENTS = 64;

/** Whether `db` has the FTS5 index (a store made without FTS5 has none). */
function hasIndex(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_fts'").get() !== undefined;
}

/** An FTS5 option of the store's index (absent: FTS5's default). */
function ftsOption(db: Db, key: string): number | undefined {
  return db.prepare('SELECT v FROM history_fts_config WHERE k = ?').pluck().get(key) as number | undefined;
}

/**
 * Set an FTS5 integer option unless it has that value (a write only then).
 * FTS5 takes only an integer, and better-sqlite3 binds numbers as reals, so
 * the value is written into the statement (it is one of our constants).
 */
function setFtsOption(db: Db, key: 'automerge' | 'usermerge' | 'crisismerge', value: number): void {
  if (!Number.isSafeInteger(value)) throw new Error(`FTS5 option ${key} must be an integer, not ${value}`);
  if (ftsOption(db, key) === value) return;
  db.prepare(`INSERT INTO history_fts (history_fts, rank) VALUES ('${key}', ${value})`).run();
}

/** Turn FTS5's merges inside commits off for this store (a write only when it is not off yet). */
export function holdAutomerge(db: Db): void {
  if (hasIndex(db)) setFtsOption(db, 'automerge', 0);
}

/** Raise FTS5's crisis merge above the backlog's fanout for this store (a write only when it is not there yet). */
function holdCrisisMerge(db: Db): void {
  if (hasIndex(db)) setFtsOption(db, 'crisismerge', CRISIS_SEGMENTS);
}

/**
 * history.db's policy for both writers of its index (capture, the migration's
 * copy): no merge inside a commit, and a crisis merge above the backlog's
 * fanout, so the merge steps of their own do all the merging. Run it inside a
 * transaction.
 */
export function holdCommitMerges(db: Db): void {
  holdAutomerge(db);
  holdCrisisMerge(db);
}

/**
 * Bounded merges of one connection's FTS5 index, its statements prepared
 * once (a store made without FTS5 has nothing to merge).
 */
export class FtsMerger {
  private readonly merge: Statement | null;
  private readonly totalChanges: Statement;

  /** The index's 'usermerge' as this connection last set or read it (undefined: not read yet). */
  private fanoutNow: number | undefined;

  /** Merge steps so far that found work (a caller compares it across a run to learn whether anything merged). */
  merged = 0;

  constructor(private readonly db: Db) {
    this.merge = hasIndex(db) ? db.prepare("INSERT INTO history_fts (history_fts, rank) VALUES ('merge', ?)") : null;
    this.totalChanges = db.prepare('SELECT total_changes()').pluck();
  }

  /**
   * Merge levels once they hold `segments` segments (FTS5's 'usermerge',
   * stored in the index). Returns whether it changed: a lower fanout can
   * find merge work in an index nothing was written to since.
   */
  fanout(segments: number): boolean {
    if (this.merge === null) return false;
    this.fanoutNow ??= ftsOption(this.db, 'usermerge') ?? SEGMENTS_PER_MERGE;
    if (this.fanoutNow === segments) return false;
    this.db.transaction(() => setFtsOption(this.db, 'usermerge', segments)).immediate();
    this.fanoutNow = segments;
    return true;
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
    if (worked) this.merged++;
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
