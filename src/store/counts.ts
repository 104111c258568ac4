// Totals of what the store holds, for status. Works on any connection.

import type { StoreCounts } from '../../protocols/history.ts';
import type { Db } from './open.ts';

export function storeCounts(db: Db): StoreCounts {
  const one = (sql: string): number => (db.prepare(sql).pluck().get() as number | null) ?? 0;
  return {
    sources: one('SELECT count(*) FROM conversation_sources'),
    conversations: one('SELECT count(*) FROM conversations'),
    records: one('SELECT count(*) FROM conversation_records'),
    documents: one('SELECT count(*) FROM history_documents'),
    rawBytes: one('SELECT coalesce(sum(length(raw)), 0) FROM conversation_records'),
  };
}
