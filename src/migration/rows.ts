// Reading and writing legacy rows without changing one byte.
//
// A row is read as `[rowid, type1, value1, type2, value2, ...]`: each cell's
// storage class (SQLite's typeof, not the declared type) and its value, with
// integers as 64-bit BigInt and text as the stored UTF-8 bytes
// (CAST(col AS BLOB)), so invalid UTF-8, NUL bytes and REAL values in INTEGER
// columns all survive. Writing binds text back through CAST(? AS TEXT), which
// reinterprets the bytes in the database encoding (UTF-8, checked when a
// connection is opened) without validating or normalising them. Rows are
// always written with their original rowid.
//
// Every read is bounded: a chunk ends after `rows` rows, before the row that
// would take it past `bytes` (a lone row may exceed), or when `ms` elapsed
// while reading (at least one row).

import type { Statement } from 'better-sqlite3';
import type { Db } from '../store/open.ts';

export type CellType = 'null' | 'integer' | 'real' | 'text' | 'blob';

/** `[rowid, type1, value1, ...]` as read with raw + safeIntegers. */
export type RawRow = readonly unknown[];

export interface TableShape {
  readonly name: string;
  readonly columns: readonly string[];
}

/** A rowid range (after, end]; `after` null means from the first row. */
export interface RowRange {
  readonly after: bigint | null;
  readonly end: bigint;
}

export interface ChunkBounds {
  readonly rows: number;
  readonly bytes: number;
  readonly ms: number;
}

export interface ReadChunk {
  readonly rows: RawRow[];
  /** Payload bytes: text and blob bytes plus 8 per number (the fixture's definition; rowids excluded). */
  readonly bytes: number;
  /** Rowid of the last row read (the chunk's end), null when no row was left. */
  readonly end: bigint | null;
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function rowid(row: RawRow): bigint {
  return row[0] as bigint;
}

/** Payload bytes of one row (see ReadChunk.bytes). */
export function rowBytes(row: RawRow): number {
  let bytes = 0;
  for (let i = 1; i < row.length; i += 2) {
    const type = row[i] as CellType;
    if (type === 'text' || type === 'blob') bytes += (row[i + 1] as Buffer).length;
    else if (type !== 'null') bytes += 8;
  }
  return bytes;
}

function payloadExpr(column: string): string {
  const c = quoteIdent(column);
  return `CASE typeof(${c}) WHEN 'text' THEN octet_length(${c}) WHEN 'blob' THEN length(${c}) WHEN 'null' THEN 0 ELSE 8 END`;
}

function cellExprs(columns: readonly string[]): string {
  return columns
    .map((column) => {
      const c = quoteIdent(column);
      return `typeof(${c}), CASE WHEN typeof(${c}) IN ('text', 'blob') THEN CAST(${c} AS BLOB) ELSE ${c} END`;
    })
    .join(', ');
}

/** Prepared reads over one table on one connection. */
export class RowReader {
  private readonly planFrom: Statement;
  private readonly planFirst: Statement;
  private readonly rangeFrom: Statement;
  private readonly rangeFirst: Statement;
  private readonly after: Statement;
  private readonly first: Statement;

  constructor(db: Db, readonly shape: TableShape) {
    const t = quoteIdent(shape.name);
    const payload = shape.columns.length === 0 ? '0' : shape.columns.map(payloadExpr).join(' + ');
    const cells = shape.columns.length === 0 ? '' : `, ${cellExprs(shape.columns)}`;
    const prepare = (sql: string): Statement => db.prepare(sql).raw(true).safeIntegers(true);
    this.planFrom = prepare(`SELECT rowid, ${payload} FROM ${t} WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?`);
    this.planFirst = prepare(`SELECT rowid, ${payload} FROM ${t} WHERE rowid <= ? ORDER BY rowid LIMIT ?`);
    this.rangeFrom = prepare(`SELECT rowid${cells} FROM ${t} WHERE rowid > ? AND rowid <= ? ORDER BY rowid`);
    this.rangeFirst = prepare(`SELECT rowid${cells} FROM ${t} WHERE rowid <= ? ORDER BY rowid`);
    this.after = prepare(`SELECT rowid FROM ${t} WHERE rowid > ? ORDER BY rowid LIMIT 1`);
    this.first = prepare(`SELECT rowid FROM ${t} LIMIT 1`);
  }

  /**
   * The next chunk after `after`, up to rowid `upper`, within `bounds`. The
   * sizes are planned first (typeof/length/octet_length read no payload), so
   * a row that would not fit is never read.
   */
  next(after: bigint | null, upper: bigint, bounds: ChunkBounds, now: () => number = performance.now.bind(performance)): ReadChunk {
    const started = now();
    const plan = (after === null ? this.planFirst.all(upper, bounds.rows) : this.planFrom.all(after, upper, bounds.rows)) as Array<[bigint, bigint]>;
    if (plan.length === 0) return { rows: [], bytes: 0, end: null };
    let planned = 0;
    let end = (plan[0] as [bigint, bigint])[0];
    for (const [id, size] of plan) {
      const bytes = Number(size);
      if (planned > 0 && planned + bytes > bounds.bytes) break;
      planned += bytes;
      end = id;
    }
    const rows: RawRow[] = [];
    let bytes = 0;
    const iterator = (after === null ? this.rangeFirst.iterate(end) : this.rangeFrom.iterate(after, end)) as IterableIterator<RawRow>;
    for (const row of iterator) {
      rows.push(row);
      bytes += rowBytes(row);
      if (now() - started >= bounds.ms) break; // leaving the loop closes the iterator
    }
    return { rows, bytes, end: rows.length === 0 ? null : rowid(rows[rows.length - 1] as RawRow) };
  }

  /** Every row in the range, in rowid order (a saved chunk: already bounded). */
  range(range: RowRange): RawRow[] {
    return (range.after === null ? this.rangeFirst.all(range.end) : this.rangeFrom.all(range.after, range.end)) as RawRow[];
  }

  /** Whether any row lies beyond `end` (null: whether the table has any row). */
  hasRowAfter(end: bigint | null): boolean {
    if (end === null) return this.first.get() !== undefined;
    return this.after.get(end) !== undefined;
  }
}

export interface WriterOptions {
  /** Write the rows' rowids (default). Without, SQLite assigns new ones. */
  readonly rowid?: boolean;
  /** Columns left to their defaults (e.g. an INTEGER PRIMARY KEY that must get a new id). */
  readonly skip?: readonly string[];
}

/** Prepared INSERT OR IGNORE of rows; one statement per text/non-text signature of the written cells. */
export class RowWriter {
  private readonly statements = new Map<string, Statement>();
  private readonly prefix: string;
  private readonly withRowid: boolean;
  /** Raw-row indexes of the written values. */
  private readonly cells: number[];

  constructor(
    private readonly db: Db,
    readonly shape: TableShape,
    options: WriterOptions = {},
  ) {
    this.withRowid = options.rowid ?? true;
    const skip = new Set(options.skip ?? []);
    const written = shape.columns.map((name, i) => ({ name, cell: 2 + 2 * i })).filter((c) => !skip.has(c.name));
    this.cells = written.map((c) => c.cell);
    const columns = [...(this.withRowid ? ['rowid'] : []), ...written.map((c) => quoteIdent(c.name))].join(', ');
    this.prefix = `INSERT OR IGNORE INTO ${quoteIdent(shape.name)} (${columns}) VALUES (`;
  }

  private statementFor(row: RawRow): Statement {
    let signature = '';
    for (const cell of this.cells) signature += row[cell - 1] === 'text' ? 't' : '-';
    let statement = this.statements.get(signature);
    if (statement === undefined) {
      const values = [...(this.withRowid ? ['?'] : []), ...[...signature].map((s) => (s === 't' ? 'CAST(? AS TEXT)' : '?'))].join(', ');
      statement = this.db.prepare(`${this.prefix}${values})`).safeIntegers(true);
      this.statements.set(signature, statement);
    }
    return statement;
  }

  /** Insert one row (or ignore it when its key exists); returns the rowid it got, null when ignored. */
  writeOne(row: RawRow): bigint | null {
    const values: unknown[] = this.withRowid ? [row[0]] : [];
    for (const cell of this.cells) values.push(row[cell]);
    const info = this.statementFor(row).run(values);
    return info.changes > 0 ? BigInt(info.lastInsertRowid) : null;
  }

  /** Insert (or ignore existing keys); the caller re-reads and compares. */
  write(rows: readonly RawRow[]): void {
    for (const row of rows) this.writeOne(row);
  }
}
