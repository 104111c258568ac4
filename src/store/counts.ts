// Totals of what the store holds, for status. Works on any connection.

import type { Db } from './open.ts';

export interface Counts {
  readonly sources: number;
  readonly conversations: number;
  readonly records: number;
  readonly documents: number;
  readonly rawBytes: number;
}

export function storeCounts(db: Db): Counts {
  const one = (sql: string): number => (db.prepare(sql).pluck().get() as number | null) ?? 0;
  return {
    sources: one('SELECT count(*) FROM conversation_sources'),
    conversations: one('SELECT count(*) FROM conversations'),
    records: one('SELECT count(*) FROM conversation_records'),
    documents: one('SELECT count(*) FROM history_documents'),
    rawBytes: one('SELECT coalesce(sum(length(raw)), 0) FROM conversation_records'),
  };
}
