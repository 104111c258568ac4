// Reading a test home's history.db directly (read-only), to check what the
// CLI and the service did.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { openWriter } from '../../src/store/open.ts';

export type Store = Database.Database;

export function openStore(home: string): Store {
  return new Database(join(home, '.agent-bridge', 'history.db'), { readonly: true, fileMustExist: true });
}

export function withStore<T>(home: string, read: (db: Store) => T): T {
  const db = openStore(home);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

export interface Totals {
  readonly sources: number;
  readonly records: number;
  readonly documents: number;
  readonly conversations: number;
}

export function totals(home: string): Totals {
  return withStore(home, (db) => ({
    sources: db.prepare('SELECT count(*) FROM conversation_sources').pluck().get() as number,
    records: db.prepare('SELECT count(*) FROM conversation_records').pluck().get() as number,
    documents: db.prepare('SELECT count(*) FROM history_documents').pluck().get() as number,
    conversations: db.prepare('SELECT count(*) FROM conversations').pluck().get() as number,
  }));
}

/**
 * Every (source, generation) of file records must tile [0, end) exactly:
 * consecutive, no gap, no overlap. Returns the problems found.
 */
export function tilingProblems(db: Store): string[] {
  const problems: string[] = [];
  const rows = db
    .prepare("SELECT source, generation, offset, length(raw) AS n FROM conversation_records WHERE source NOT LIKE '%:inline:%' ORDER BY source, generation, offset")
    .all() as Array<{ source: string; generation: number; offset: number; n: number }>;
  let key = '';
  let expected = 0;
  for (const row of rows) {
    const k = `${row.source}\u0000${row.generation}`;
    if (k !== key) {
      key = k;
      expected = 0;
    }
    if (row.offset !== expected) problems.push(`${row.source} g${row.generation}: record at ${row.offset}, expected ${expected}`);
    expected = row.offset + row.n;
  }
  return problems;
}

/**
 * Documents whose history_document_facets row is missing or differs, plus
 * facets rows without their document: 0 when the facets mirror the documents.
 */
export function facetsDrift(db: Store): number {
  return db
    .prepare(
      `SELECT (SELECT count(*) FROM history_documents d LEFT JOIN history_document_facets x ON x.doc = d.rowid
               WHERE x.doc IS NULL OR x.agent IS NOT d.agent OR x.kind IS NOT d.kind OR x.at IS NOT d.at)
            + (SELECT count(*) FROM history_document_facets x WHERE NOT EXISTS (SELECT 1 FROM history_documents d WHERE d.rowid = x.doc))`,
    )
    .pluck()
    .get() as number;
}

/** FTS5's integrity check with rank = 1: the index also compared with its external content (the text derived from the bytes). */
export function ftsIntegrityAgainstContent(historyDb: string): void {
  const db = openWriter(historyDb);
  try {
    db.prepare("INSERT INTO history_fts(history_fts, rank) VALUES ('integrity-check', 1)").run();
  } finally {
    db.close();
  }
}
