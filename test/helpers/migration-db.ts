// Read-only looks at the databases a migration produced.

import Database from 'better-sqlite3';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { registerFunctions } from '../../src/store/open.ts';
import assert from 'node:assert/strict';
import { fixtures, type TestHome } from './legacy-home.ts';

/** Read-only and query-only, with our SQL functions (a search reads span documents' text through one). */
export function openRead(path: string): Database.Database {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.pragma('query_only = ON');
  registerFunctions(db);
  return db;
}

/** bh-row-v1 digest and row count of every named table (the fixture's reference implementation). */
export async function digests(path: string, tables: readonly string[]): Promise<Record<string, { rows: number; sha256: string }>> {
  const { tableDigest } = await fixtures();
  const db = openRead(path);
  try {
    return Object.fromEntries(tables.map((t) => [t, tableDigest(db, t)]));
  } finally {
    db.close();
  }
}

export function migrationRow(historyDb: string): { status: string; snapshot: string | null; manifest: Record<string, unknown> | null } | undefined {
  const db = openRead(historyDb);
  try {
    const row = db.prepare('SELECT status, snapshot, manifest FROM history_migration WHERE version = 1').get() as
      | { status: string; snapshot: string | null; manifest: string | null }
      | undefined;
    return row === undefined ? undefined : { ...row, manifest: row.manifest === null ? null : (JSON.parse(row.manifest) as Record<string, unknown>) };
  } finally {
    db.close();
  }
}

export function tableNames(path: string): string[] {
  const db = openRead(path);
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]).filter((n) => !n.startsWith('sqlite_'));
  } finally {
    db.close();
  }
}

export function snapshotFiles(home: string): string[] {
  try {
    return readdirSync(join(home, '.migration-snapshots')).sort();
  } catch {
    return [];
  }
}

/** history.db's FTS5 index agrees with its content, and every fixture keyword matches as many documents as the fixture counted. */
export function assertFtsKeywords(home: TestHome): void {
  // Writable: FTS5's integrity-check is an INSERT command (it changes nothing).
  const db = new Database(join(home.home, 'history.db'));
  try {
    db.prepare("INSERT INTO history_fts(history_fts) VALUES('integrity-check')").run(); // throws when the index disagrees with its content
    for (const [word, spec] of Object.entries(home.manifest.keywords)) {
      const count = db.prepare('SELECT count(*) FROM history_fts WHERE history_fts MATCH ?').pluck().get(`"${word}"`);
      assert.equal(count, spec.fts.actual, word);
    }
  } finally {
    db.close();
  }
}
