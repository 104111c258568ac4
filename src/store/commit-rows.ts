// Committing provider rows (OpenCode, bridge records): each record with its
// documents, the provider's parent links, session bindings and aliases, then
// the provider's cursors, in the caller's transaction.

import type { RowBatch } from '../../protocols/rows.ts';
import type { RecordAppender } from './appender.ts';
import type { AppendTotals } from '../../protocols/history.ts';
import { BindingWriter } from './bindings.ts';
import type { ConversationIndex } from './conversations.ts';
import type { Db } from './open.ts';

export class RowCommitter {
  private readonly upsertCursor;
  private readonly bindings;

  constructor(
    db: Db,
    private readonly appender: RecordAppender,
    private readonly conversations: ConversationIndex,
  ) {
    this.upsertCursor = db.prepare(
      'INSERT INTO history_cursors (source, cursor) VALUES (?, ?) ON CONFLICT(source) DO UPDATE SET cursor = excluded.cursor',
    );
    this.bindings = new BindingWriter(db);
  }

  /** Documents are queued: the writer flushes them once per transaction (see appender.ts). */
  commit(batch: RowBatch, totals: AppendTotals): void {
    for (const record of batch.records) {
      const conversation = this.conversations.ensure(record.conversation, record.project ?? '');
      if (record.project !== null) this.conversations.setProject(conversation.id, record.project);
      const id = this.appender.append(
        { source: record.source, generation: record.generation, offset: record.offset, conversation: conversation.id, at: record.at, raw: record.raw, part: record.part },
        totals,
      );
      for (const doc of record.documents) this.appender.addDocument(id, conversation, { ...doc, at: record.at }, totals);
    }
    for (const link of batch.links) this.conversations.setParent(link.child, link.parent);
    // Bound jobs and projects change conversation rows behind the cache's back.
    if (this.bindings.apply(batch.bindings ?? [], batch.aliases ?? [])) this.conversations.clear();
    for (const [key, value] of batch.cursors) this.upsertCursor.run(key, value);
  }
}
