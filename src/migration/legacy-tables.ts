// Which of the 14 legacy history/conversation tables a database holds, and
// their shape. Any of them may be missing (a 0.29.10 home has only the six
// history tables; one 0.29.17 revision lacks conversation_memberships), so
// the migration copies exactly what is there, in the legacy copy order.

import { HistoryError } from '../../protocols/errors.ts';
import type { Db } from '../store/open.ts';
import { LEGACY_TABLES, type LegacyTable } from '../store/schema.ts';
import { quoteIdent } from './rows.ts';

export interface ColumnShape {
  readonly name: string;
  readonly type: string;
  readonly notnull: number;
  readonly dflt: string | null;
  readonly pk: number;
}

export interface LegacyTableInfo {
  readonly name: LegacyTable;
  /** Position in the legacy copy order. */
  readonly position: number;
  /** The CREATE TABLE statement as stored in sqlite_master. */
  readonly sql: string;
  readonly columns: readonly ColumnShape[];
  /** Guarded by the legacy append-only triggers (no UPDATE, no DELETE). */
  readonly appendOnly: boolean;
  readonly minRowid: bigint | null;
  readonly maxRowid: bigint | null;
}

/** The triggers that make a legacy table append-only (layout doc §4.2). */
const APPEND_ONLY_TRIGGERS: Partial<Record<LegacyTable, readonly string[]>> = {
  conversation_records: ['conversation_records_no_delete', 'conversation_records_no_update'],
};

export function columnShapes(db: Db, table: string, schema = 'main'): ColumnShape[] {
  const rows = db.prepare(`PRAGMA ${quoteIdent(schema)}.table_info(${quoteIdent(table)})`).all() as Array<{
    name: string;
    type: string;
    notnull: number;
    dflt_value: string | null;
    pk: number;
  }>;
  return rows.map((r) => ({ name: r.name, type: r.type, notnull: r.notnull, dflt: r.dflt_value, pk: r.pk }));
}

/** Same columns in the same order with the same declared type, nullability, default and key. */
export function sameShape(a: readonly ColumnShape[], b: readonly ColumnShape[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i] as ColumnShape;
      return x.name === y.name && x.type.toUpperCase() === y.type.toUpperCase() && x.notnull === y.notnull && x.dflt === y.dflt && x.pk === y.pk;
    })
  );
}

/** The byte-exact text handling (CAST to and from BLOB) assumes UTF-8. */
export function assertUtf8(db: Db, what: string): void {
  const encoding = db.pragma('encoding', { simple: true }) as string;
  if (encoding !== 'UTF-8') {
    throw new HistoryError('VERIFY_FAILED', `${what} uses text encoding ${encoding}; the migration only copies UTF-8 databases byte-exactly`);
  }
}

function appendOnly(db: Db, table: LegacyTable): boolean {
  const wanted = APPEND_ONLY_TRIGGERS[table];
  if (wanted === undefined) return false;
  const found = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? AND sql LIKE '%RAISE%'`)
    .pluck()
    .all(table) as string[];
  return wanted.every((name) => found.includes(name));
}

/** The legacy tables present in `db` (read inside the caller's read transaction), in copy order. */
export function legacyTablesIn(db: Db): LegacyTableInfo[] {
  const found = new Map(
    (db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string; sql: string | null }>).map((r) => [r.name, r.sql]),
  );
  const tables: LegacyTableInfo[] = [];
  LEGACY_TABLES.forEach((name, position) => {
    const sql = found.get(name);
    if (sql === undefined) return;
    if (sql === null || !/^\s*CREATE\s+TABLE/i.test(sql) || /WITHOUT\s+ROWID\s*$/i.test(sql)) {
      throw new HistoryError('VERIFY_FAILED', `legacy table ${name} is not an ordinary rowid table; it cannot be copied with its rowids`);
    }
    const t = quoteIdent(name);
    const bounds = db.prepare(`SELECT min(rowid), max(rowid) FROM ${t}`).raw(true).safeIntegers(true).get() as [bigint | null, bigint | null];
    tables.push({ name, position, sql, columns: columnShapes(db, name), appendOnly: appendOnly(db, name), minRowid: bounds[0], maxRowid: bounds[1] });
  });
  return tables;
}

export function hasAnyLegacyTable(db: Db): boolean {
  const placeholders = LEGACY_TABLES.map(() => '?').join(', ');
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN (${placeholders})`).get(...LEGACY_TABLES) !== undefined;
}
