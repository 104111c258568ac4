// Totals of what the store holds, for status. Works on any connection.
//
// Records and their bytes come from history_conversation_stats, which a
// trigger keeps in step with every record inserted (records are never
// updated or deleted): a sum over one row per conversation. Summing
// length(raw) over conversation_records instead reads every record's pages,
// the retained bytes included: 75 ms on a 1 GiB store with its pages cached,
// 590 ms on an 8 GiB one and 32 s with them on disk, and the writer thread
// asked for counts every few seconds while it captured. A store made before
// the stats table (read by the CLI before a writer upgraded it) is scanned.

import type { StoreCounts } from '../../protocols/history.ts';
import { hasTable, type Db } from './open.ts';

export function storeCounts(db: Db): StoreCounts {
  const one = (sql: string): number => (db.prepare(sql).pluck().get() as number | null) ?? 0;
  const stats = hasTable(db, 'history_conversation_stats');
  return {
    sources: one('SELECT count(*) FROM conversation_sources'),
    conversations: one('SELECT count(*) FROM conversations'),
    records: one(stats ? 'SELECT coalesce(sum(records), 0) FROM history_conversation_stats' : 'SELECT count(*) FROM conversation_records'),
    documents: one('SELECT count(*) FROM history_documents'),
    rawBytes: one(stats ? 'SELECT coalesce(sum(bytes), 0) FROM history_conversation_stats' : 'SELECT coalesce(sum(length(raw)), 0) FROM conversation_records'),
  };
}
