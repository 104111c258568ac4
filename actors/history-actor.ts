// History actor: the only writer of history.db. Owns the writable connection
// (opened under the cross-process writer lock by the supervisor) and turns
// typed messages into calls on the store's writer. Each message is one
// synchronous transaction, so its handler cannot interleave with another.

import type { Actor } from '../protocols/actor.ts';
import type { HistoryMessage, HistoryReplies } from '../protocols/history.ts';
import type { Db } from '../src/store/open.ts';
import { cursorsWithPrefix } from '../src/store/cursors.ts';
import { onStore } from '../src/store/store-errors.ts';
import { retainedBytes, retainedChunks, retainedPage, sourcesWithRecords, versionsOf } from '../src/store/records.ts';
import { lastReindex, nextFileSource, otherRecordsAfter, recordsFrom, reindexProgress } from '../src/store/reindex-store.ts';
import { loadScrubProgress, spanAt, spansFrom } from '../src/store/scrub-store.ts';
import { HistoryWriter } from '../src/store/writer.ts';

export class HistoryActor implements Actor<HistoryMessage, HistoryReplies> {
  readonly name = 'history';
  private readonly writer: HistoryWriter;

  constructor(private readonly db: Db) {
    this.writer = new HistoryWriter(db);
  }

  handle<T extends HistoryMessage>(message: T): HistoryReplies[T['type']] {
    // A damaged page anywhere in history.db surfaces as one clear error naming the file.
    return onStore(this.db.name, () => this.dispatch(message)) as HistoryReplies[T['type']];
  }

  private dispatch(message: HistoryMessage): HistoryReplies[HistoryMessage['type']] {
    switch (message.type) {
      case 'loadSources':
        return this.writer.loadSources();
      case 'register':
        return this.writer.register(message.plans);
      case 'move':
        return this.writer.move(message.id, message.path);
      case 'commit':
        return this.writer.commit(message.chunks, message.rows);
      case 'touch':
        return this.writer.touch(message.id, message.facts);
      case 'retained':
        return retainedChunks(this.db, message.source, message.generation);
      case 'retainedPage':
        return retainedPage(this.db, message.source, message.generation, message.from, message.limit);
      case 'retainedSources':
        return sourcesWithRecords(this.db, message.sources);
      case 'spansFrom':
        return spansFrom(this.db, message.source, message.generation, message.offset, message.maxBytes);
      case 'spanAt':
        return spanAt(this.db, message.source, message.generation, message.offset);
      case 'retainedBytes':
        return retainedBytes(this.db, message.source, message.generation, message.from, message.to);
      case 'scrubProgress':
        return loadScrubProgress(this.db);
      case 'saveScrub':
        return this.writer.saveScrub(message.progress);
      case 'counts':
        return this.writer.counts();
      case 'mergeIndex':
        return this.writer.mergeIndex(message.pages, message.budgetMs, message.backlog);
      case 'cursors':
        return cursorsWithPrefix(this.db, message.prefix);
      case 'versions':
        return versionsOf(this.db, message.sources);
      case 'reindexProgress':
        return reindexProgress(this.db);
      case 'lastReindex':
        return lastReindex(this.db);
      case 'beginReindex':
        return this.writer.beginReindex(message.requestedAt);
      case 'resetStep':
        return this.writer.resetStep(message.progress, message.limit);
      case 'saveReindex':
        return this.writer.saveReindex(message.progress);
      case 'nextFileSource':
        return nextFileSource(this.db, message.after);
      case 'recordsFrom':
        return recordsFrom(this.db, message.source, message.generation, message.offset, message.maxRecord, message.limit);
      case 'otherRecords':
        return otherRecordsAfter(this.db, message.after, message.maxRecord, message.limit);
      case 'rebuild':
        return this.writer.rebuild(message.chunks, message.rows, message.progress, message.next);
    }
  }

  async stop(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
