// Facts about a history.db left by a bench run, read after the ingesting
// process has exited (so its writer connection is closed and has
// checkpointed). Sizes are history.db plus history.db-wal as found; a WAL
// left behind would be counted, not hidden.

import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { type StoreBreakdown, storeBreakdown } from './store-breakdown.ts';

export interface StoreFacts {
  /** Source bytes captured: the sum of every file source's cursor offset. */
  readonly sourceBytes: number;
  readonly sources: number;
  readonly records: number;
  readonly documents: number;
  readonly dbBytes: number;
  readonly walBytes: number;
  /** Where the bytes go (dbstat), when asked for. */
  readonly breakdown: StoreBreakdown | null;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export function storeFacts(path: string, options: { dbstat: boolean }): StoreFacts {
  const walBytes = sizeOf(`${path}-wal`);
  const dbBytes = sizeOf(path);
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const one = (sql: string): number => (db.prepare(sql).pluck().get() as number | null) ?? 0;
    return {
      sourceBytes: one('SELECT coalesce(sum(offset), 0) FROM conversation_sources'),
      sources: one('SELECT count(*) FROM conversation_sources'),
      records: one('SELECT count(*) FROM conversation_records'),
      documents: one('SELECT count(*) FROM history_documents'),
      dbBytes,
      walBytes,
      breakdown: options.dbstat ? storeBreakdown(path) : null,
    };
  } finally {
    db.close();
  }
}
