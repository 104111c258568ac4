// Opening SQLite files, shared by the store, sources, bridge and migration:
// the connection type, and the opener of another program's database
// (bridge.db, archive.db, opencode.db, a migration snapshot). history.db's
// own writer and reader (schema, version check, SQL functions) are in
// src/store/open.ts, on top of this.

import Database from 'better-sqlite3';

export type Db = Database.Database;

/**
 * Open another program's SQLite file (bridge.db, archive.db, opencode.db)
 * read-only and query-only: nothing this connection runs can write to it.
 */
export function openQueryOnly(path: string, busyTimeoutMs: number): Db {
  const db = new Database(path, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
  try {
    db.pragma('query_only = ON');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
