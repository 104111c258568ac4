// bh-row-v1 (row-hash.ts) computed inside SQLite: one statement encodes a
// whole chunk of rows into the exact bytes RowEncoder would produce, so a
// chunk is checked without turning every cell into a JavaScript value (for
// millions of tiny rows that marshalling, not the bytes, was the cost).
//
// Per cell: the storage-class tag, the 8-byte big-endian length, the payload
// (integers as 8-byte big-endian two's complement through printf('%016x'),
// which prints an int64 as its unsigned 64-bit pattern; text as its stored
// bytes through CAST AS BLOB; REAL through bh_real(), a function registered
// on the connection, because SQL has no way to read a double's bits). The
// row is prefixed with its 4-byte cell count and its rowid cell. A chunk's
// rows are concatenated in rowid order by group_concat over the ordered
// range (a rowid range scan yields rowid order), and a row that could not be
// encoded (NULL) is counted, never silently skipped.

import type { Statement } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { HistoryError } from '../../protocols/errors.ts';
import type { Db } from '../store/open.ts';
import type { ByteSink } from './row-hash.ts';
import type { RowRange, TableShape } from './rows.ts';
import { quoteIdent } from './rows.ts';

const registered = new WeakSet<Db>();

/** Register bh_real(x): the 8-byte big-endian binary64 of a REAL (once per connection). */
export function registerRowFunctions(db: Db): void {
  if (registered.has(db)) return;
  db.function('bh_real', { deterministic: true }, (value: unknown) => {
    const out = Buffer.allocUnsafe(8);
    out.writeDoubleBE(Number(value));
    return out;
  });
  registered.add(db);
}

function hex(n: number, bytes: number): string {
  return `x'${n.toString(16).padStart(bytes * 2, '0')}'`;
}

function cellSql(column: string): string {
  const c = quoteIdent(column);
  return `CASE typeof(${c})
    WHEN 'null' THEN x'000000000000000000'
    WHEN 'integer' THEN x'010000000000000008' || unhex(printf('%016x', ${c}))
    WHEN 'real' THEN x'020000000000000008' || bh_real(${c})
    WHEN 'text' THEN x'03' || unhex(printf('%016x', octet_length(${c}))) || CAST(${c} AS BLOB)
    ELSE x'04' || unhex(printf('%016x', length(${c}))) || ${c} END`;
}

/** The SQL expression of one row's bh-row-v1 encoding (a TEXT value holding the bytes). */
export function rowEncodingSql(columns: readonly string[]): string {
  return [hex(columns.length + 1, 4), `x'010000000000000008' || unhex(printf('%016x', rowid))`, ...columns.map(cellSql)].join(' || ');
}

export interface EncodedChunk {
  readonly rows: number;
  /** The concatenated bh-row-v1 encoding of the rows (empty when none). */
  readonly bytes: Buffer;
}

/** The chunk digest (SHA-256 hex of the encoded rows), as chunkDigest gives it for the same rows. */
export function digestOf(chunk: EncodedChunk): string {
  return createHash('sha256').update(chunk.bytes).digest('hex');
}

/** Encodes rowid ranges of one table on one connection (schema `schema`). */
export class ChunkEncoder {
  private readonly from: Statement;
  private readonly first: Statement;

  constructor(
    db: Db,
    readonly shape: TableShape,
    schema = 'main',
  ) {
    registerRowFunctions(db);
    const t = `${quoteIdent(schema)}.${quoteIdent(shape.name)}`;
    const select = (where: string): string =>
      `SELECT count(*), count(*) - count(e), CAST(group_concat(e, '') AS BLOB) FROM (SELECT ${rowEncodingSql(shape.columns)} AS e FROM ${t} WHERE ${where} ORDER BY rowid)`;
    this.from = db.prepare(select('rowid > ? AND rowid <= ?')).raw(true).safeIntegers(true);
    this.first = db.prepare(select('rowid <= ?')).raw(true).safeIntegers(true);
  }

  encode(range: RowRange): EncodedChunk {
    const [rows, failed, bytes] = (range.after === null ? this.first.get(range.end) : this.from.get(range.after, range.end)) as [bigint, bigint, Buffer | null];
    if (failed > 0n) {
      throw new HistoryError('VERIFY_FAILED', `${this.shape.name}: ${failed} rows in ${range.after ?? 'first'}..${range.end} could not be encoded for their row hash`);
    }
    return { rows: Number(rows), bytes: bytes ?? Buffer.alloc(0) };
  }

  /** Encode the range and pass its bytes to `sinks`; returns the row count. */
  feed(range: RowRange, sinks: readonly ByteSink[]): number {
    const chunk = this.encode(range);
    for (const sink of sinks) sink.update(chunk.bytes);
    return chunk.rows;
  }
}
