// The store as the single writer sees it. Owns the writable connection's
// statements and the caches that must be dropped when a transaction rolls
// back. Every public method is one synchronous transaction (better-sqlite3
// transactions cannot span an await), so no source read, provider query or
// Git lookup can ever happen inside one.

import type { CommitChunk, CommitResult, CommitTotals, ReindexProgress, ScrubProgress, StoreCounts } from '../../protocols/history.ts';
import type { RowBatch } from '../../protocols/rows.ts';
import type { SourceCursor, SourcePlan, StoredSource } from '../../protocols/sources.ts';
import { RecentMap } from '../cache/recent-map.ts';
import { RecordAppender } from './appender.ts';
import type { RouteState } from './commit.ts';
import { ChunkCommitter } from './commit.ts';
import { RowCommitter } from './commit-rows.ts';
import { storeCounts } from './counts.ts';
import { ConversationIndex } from './conversations.ts';
import type { Db } from './open.ts';
import { beginReindex, resetDerivedStep, saveReindexProgress } from './reindex-store.ts';
import { saveScrubProgress } from './scrub-store.ts';
import { EMPTY_CURSOR, SourceRows, loadSource, loadSources } from './source-rows.ts';
import { BACKLOG_SEGMENTS_PER_MERGE, FtsMerger, SEGMENTS_PER_MERGE, holdCommitMerges } from './fts-merge.ts';

/**
 * Sources (and conversations, src/store/conversations.ts) whose rows the
 * writer keeps: far more than a batch touches (two sources, a provider's
 * rows), so a source's turn of batches finds its cursor cached, but not
 * every source of a large home. Keeping them all cost about 700 B of heap
 * per source (10 MiB at 15,000 sources, before V8's headroom), and a
 * capture touches a few sources at a time.
 */
export const WRITER_CACHED_ROWS = 1024;

export class HistoryWriter {
  readonly db: Db;
  private readonly conversations: ConversationIndex;
  private readonly sources: SourceRows;
  private readonly committer: ChunkCommitter;
  private readonly rows: RowCommitter;
  private readonly appender: RecordAppender;
  /** Committed cursors of the sources written last: each one is the row saveCursor wrote in the same transaction. */
  private readonly cursors = new RecentMap<string, SourceCursor>(WRITER_CACHED_ROWS);
  /**
   * The last counts and the store version they were taken at. Counting
   * still walks three tables' indexes (src/store/counts.ts: millions of
   * document rows in a large store), so counts are taken again only when
   * the store changed: the key is the changes this connection made that
   * can move a count (total_changes() minus those of saveScrub, which touch
   * no counted table) and data_version (any other connection's commit).
   */
  private countsCache: { key: string; counts: StoreCounts } | null = null;
  private uncountedChanges = 0;
  private readonly totalChanges: () => number;
  private readonly dataVersion: () => number;
  /** The content key when a merge last found nothing to merge (null: not yet asked). */
  private mergedAt: string | null = null;
  private automergeHeld = false;
  private readonly merger: FtsMerger;

  constructor(db: Db) {
    this.db = db;
    this.conversations = new ConversationIndex(db, WRITER_CACHED_ROWS);
    this.sources = new SourceRows(db);
    this.appender = new RecordAppender(db);
    this.committer = new ChunkCommitter(this.appender, this.conversations, this.sources);
    this.rows = new RowCommitter(db, this.appender, this.conversations);
    const totalChanges = db.prepare('SELECT total_changes()').pluck();
    const dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.totalChanges = () => totalChanges.get() as number;
    this.dataVersion = () => dataVersion.get() as number;
    this.merger = new FtsMerger(db);
  }

  private cursor(id: string): SourceCursor {
    let cursor = this.cursors.get(id);
    if (cursor === undefined) {
      cursor = loadSource(this.db, id)?.cursor ?? EMPTY_CURSOR;
      this.cursors.set(id, cursor);
    }
    return cursor;
  }

  /** Run `body` in an IMMEDIATE transaction; on failure drop every cache and queued document it may have touched. */
  private transact<T>(body: () => T): T {
    try {
      return this.db
        .transaction(() => {
          const result = body();
          this.appender.assertFlushed();
          return result;
        })
        .immediate();
    } catch (error) {
      this.appender.discardDocuments();
      this.conversations.clear();
      this.cursors.clear();
      throw error;
    }
  }

  loadSources(): StoredSource[] {
    return loadSources(this.db);
  }

  /** Register newly discovered sources (and their conversations). Returns how many are new. */
  register(plans: readonly SourcePlan[]): number {
    return this.transact(() => {
      let added = 0;
      for (const plan of plans) {
        this.conversations.ensure(plan.conversation);
        if (plan.conversation.parent !== null) {
          const current = this.conversations.get(plan.conversation.id);
          // A path-derived parent never overrides one learned from the bytes.
          if (current !== undefined && current.parent === null) this.conversations.setParent(plan.conversation.id, plan.conversation.parent);
        }
        if (this.sources.register(plan)) added++;
      }
      return added;
    });
  }

  move(id: string, path: string): void {
    this.transact(() => this.sources.move(id, path));
  }

  /** Commit a batch: file chunks and provider rows, with their cursors, in one transaction. */
  commit(chunks: readonly CommitChunk[], rows: readonly RowBatch[] = []): CommitResult {
    return this.transact(() => {
      const totals: CommitTotals = { records: 0, documents: 0, rawBytes: 0, bodyBytes: 0, malformed: 0 };
      for (const chunk of chunks) this.cursors.set(chunk.source, this.committer.commit(chunk, this.cursor(chunk.source), totals));
      for (const batch of rows) this.rows.commit(batch, totals);
      this.appender.flushDocuments(totals);
      const moved = new Set(chunks.map((c) => c.source));
      return { ...totals, cursors: [...moved].map((id) => [id, this.cursor(id)] as const) };
    });
  }

  /**
   * Move a cursor without new bytes: new file facts for a touched file whose
   * captured bytes were verified unchanged, or the start (offset 0) of a new
   * generation of a file that was truncated or replaced.
   */
  touch(id: string, facts: Partial<SourceCursor>): void {
    this.transact(() => {
      const cursor = { ...this.cursor(id), ...facts };
      this.sources.saveCursor(id, cursor);
      this.cursors.set(id, cursor);
    });
  }

  // ---- reindex (derived data only) ------------------------------------------

  beginReindex(requestedAt: number): ReindexProgress {
    return this.transact(() => beginReindex(this.db, requestedAt));
  }

  /** Delete one bounded slice of derived documents; returns how many. */
  resetStep(progress: ReindexProgress, limit: number): number {
    return this.transact(() => resetDerivedStep(this.db, progress, limit));
  }

  saveReindex(progress: ReindexProgress | null): void {
    this.transact(() => saveReindexProgress(this.db, progress));
  }

  /**
   * Derive documents again for retained chunks of one file source (in offset
   * order, continuing `progress`) and for provider rows, then save the
   * progress `next` says, all in one transaction.
   */
  rebuild(chunks: readonly CommitChunk[], rows: readonly RowBatch[], progress: ReindexProgress, next: ReindexProgress): CommitTotals {
    return this.transact(() => {
      const totals: CommitTotals = { records: 0, documents: 0, rawBytes: 0, bodyBytes: 0, malformed: 0 };
      let generation = progress.generation;
      let state: RouteState = { route: progress.route, lineStart: progress.lineStart, at: progress.at, facts: progress.facts ?? null };
      for (const chunk of chunks) {
        if (chunk.generation !== generation) state = { route: null, lineStart: 0, at: null };
        generation = chunk.generation;
        state = this.committer.apply(chunk, state, totals, 'rebuild');
      }
      for (const batch of rows) this.rows.commit(batch, totals);
      this.appender.flushDocuments(totals);
      saveReindexProgress(this.db, chunks.length > 0 ? { ...next, ...state } : next);
      return totals;
    });
  }

  saveScrub(progress: ScrubProgress): void {
    this.uncounted(() => this.transact(() => saveScrubProgress(this.db, progress)));
  }

  /** What the store holds; counted again only when something may have changed it. */
  counts(): StoreCounts {
    const key = this.contentKey();
    if (this.countsCache?.key !== key) this.countsCache = { key, counts: storeCounts(this.db) };
    return this.countsCache.counts;
  }

  /** What the counted tables hold, as of now: this connection's changes that can move a count, and other connections' commits. */
  private contentKey(): string {
    return `${this.totalChanges() - this.uncountedChanges}:${this.dataVersion()}`;
  }

  /**
   * Bounded merges of the FTS5 index (src/store/fts-merge.ts: automerge is
   * off, so the capture loop merges between batches), at the backlog's
   * fanout while `backlog` (capture has more to do) and at FTS5's default
   * once it has not, unless nothing was written since a merge last found
   * nothing to merge at that fanout. Returns whether merge work may remain.
   * Merges move no count: their changes are left out of the counts' key.
   */
  mergeIndex(pages: number, budgetMs: number, backlog: boolean): boolean {
    this.uncounted(() => {
      // Off from the first call on: the capture loop asks between its batches. (The legacy migration's
      // copy, which runs before that loop starts, holds it off too and merges between its own units.)
      if (!this.automergeHeld) {
        this.transact(() => holdCommitMerges(this.db));
        this.automergeHeld = true;
      }
      if (this.merger.fanout(backlog ? BACKLOG_SEGMENTS_PER_MERGE : SEGMENTS_PER_MERGE)) this.mergedAt = null;
    });
    const key = this.contentKey();
    if (key === this.mergedAt) return false;
    const more = this.uncounted(() => this.merger.run(pages, budgetMs));
    if (!more) this.mergedAt = key;
    return more;
  }

  /** Run `body`, leaving the changes it makes out of the counts' key (they touch no counted table). */
  private uncounted<T>(body: () => T): T {
    const before = this.totalChanges();
    try {
      return body();
    } finally {
      this.uncountedChanges += this.totalChanges() - before;
    }
  }
}
