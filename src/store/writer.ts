// The store as the single writer sees it. Owns the writable connection's
// statements and the caches that must be dropped when a transaction rolls
// back. Every public method is one synchronous transaction (better-sqlite3
// transactions cannot span an await), so no source read, provider query or
// Git lookup can ever happen inside one.

import type { SourcePlan } from '../sources/source-module.ts';
import type { CommitChunk, CommitResult, CommitTotals } from './commit.ts';
import { ChunkCommitter } from './commit.ts';
import { type Counts, storeCounts } from './counts.ts';
import { ConversationIndex } from './conversations.ts';
import type { Db } from './open.ts';
import type { SourceCursor, StoredSource } from './source-rows.ts';
import { EMPTY_CURSOR, SourceRows, loadSource, loadSources } from './source-rows.ts';

export type { Counts as StoreCounts } from './counts.ts';

export class HistoryWriter {
  readonly db: Db;
  private readonly conversations: ConversationIndex;
  private readonly sources: SourceRows;
  private readonly committer: ChunkCommitter;
  private readonly cursors = new Map<string, SourceCursor>();

  constructor(db: Db) {
    this.db = db;
    this.conversations = new ConversationIndex(db);
    this.sources = new SourceRows(db);
    this.committer = new ChunkCommitter(
      db,
      this.conversations,
      this.sources,
      (id) => this.cursor(id),
      (id, cursor) => this.cursors.set(id, cursor),
    );
  }

  private cursor(id: string): SourceCursor {
    let cursor = this.cursors.get(id);
    if (cursor === undefined) {
      cursor = loadSource(this.db, id)?.cursor ?? EMPTY_CURSOR;
      this.cursors.set(id, cursor);
    }
    return cursor;
  }

  /** Run `body` in an IMMEDIATE transaction; on failure drop every cache it may have touched. */
  private transact<T>(body: () => T): T {
    try {
      return this.db.transaction(body).immediate();
    } catch (error) {
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

  /** Commit chunks (records, documents, cursors) in one transaction. */
  commit(chunks: readonly CommitChunk[]): CommitResult {
    return this.transact(() => {
      const totals: CommitTotals = { records: 0, documents: 0, rawBytes: 0, bodyBytes: 0, malformed: 0 };
      for (const chunk of chunks) this.committer.commit(chunk, totals);
      const moved = new Set(chunks.map((c) => c.source));
      return { ...totals, cursors: [...moved].map((id) => [id, this.cursor(id)] as const) };
    });
  }

  /** Record new file facts without new bytes (a touched file verified unchanged). */
  touch(id: string, facts: Pick<SourceCursor, 'identity' | 'size' | 'mtimeMs'>): void {
    this.transact(() => {
      const cursor = { ...this.cursor(id), ...facts };
      this.sources.saveCursor(id, cursor);
      this.cursors.set(id, cursor);
    });
  }

  counts(): Counts {
    return storeCounts(this.db);
  }

}
