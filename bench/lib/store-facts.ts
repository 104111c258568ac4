// Facts about a history.db left by a bench run, read after the ingesting
// process has exited (so its writer connection is closed and has
// checkpointed). Sizes are history.db plus history.db-wal as found; a WAL
// left behind would be counted, not hidden.

import Database from 'better-sqlite3';
import { statSync } from 'node:fs';

export interface StoreFacts {
  /** Source bytes captured: the sum of every file source's cursor offset. */
  readonly sourceBytes: number;
  readonly sources: number;
  readonly records: number;
  readonly documents: number;
  readonly dbBytes: number;
  readonly walBytes: number;
  /** Bytes per table/index (dbstat), largest first, when asked for. */
  readonly tables: ReadonlyArray<{ name: string; bytes: number }> | null;
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
    let tables: StoreFacts['tables'] = null;
    if (options.dbstat) {
      const rows = db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all() as Array<{ name: string; bytes: number }>;
      tables = rows;
    }
    return {
      sourceBytes: one('SELECT coalesce(sum(offset), 0) FROM conversation_sources'),
      sources: one('SELECT count(*) FROM conversation_sources'),
      records: one('SELECT count(*) FROM conversation_records'),
      documents: one('SELECT count(*) FROM history_documents'),
      dbBytes,
      walBytes,
      tables,
    };
  } finally {
    db.close();
  }
}
