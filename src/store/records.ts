// Reading retained records back: the exact bytes of a source generation, the
// generations a source has. Works on any connection (writer or read-only).

import type { RetainedVersion } from '../../protocols/history.ts';
import type { Db } from './open.ts';
import { prepared } from './statements.ts';

export interface RetainedChunk {
  readonly offset: number;
  readonly raw: Uint8Array;
}

/** Records per page of retainedChunks. */
export const RETAINED_PAGE = 8;

/** Up to `limit` records of one (source, generation) from offset `from` on, in offset order. */
export function retainedPage(db: Db, source: string, generation: number, from: number, limit: number): RetainedChunk[] {
  return prepared(db, 'SELECT offset, raw FROM conversation_records WHERE source = ? AND generation = ? AND offset >= ? ORDER BY offset LIMIT ?').all(
    source,
    generation,
    from,
    limit,
  ) as RetainedChunk[];
}

/** Those of `sources` that have at least one retained record (in any generation), each once. */
export function sourcesWithRecords(db: Db, sources: readonly string[]): string[] {
  if (sources.length === 0) return [];
  return prepared(db, 'SELECT DISTINCT source FROM conversation_records WHERE source IN (SELECT value FROM json_each(?))')
    .pluck()
    .all(JSON.stringify(sources)) as string[];
}

/**
 * The records of one (source, generation), in offset order, a page at a time
 * from `page` (one query each, so no statement stays open while the consumer
 * awaits: better-sqlite3 refuses other statements during an open iterator,
 * and a page may come from another thread, src/service/writer-client.ts).
 */
export function* pagedRecords(page: (from: number, limit: number) => RetainedChunk[]): Generator<RetainedChunk> {
  let from = 0;
  for (;;) {
    const rows = page(from, RETAINED_PAGE);
    for (const row of rows) yield row;
    if (rows.length < RETAINED_PAGE) return;
    const last = rows[rows.length - 1] as RetainedChunk;
    from = last.offset + 1;
  }
}

/** The records of one (source, generation) in offset order, from this connection. */
export function retainedChunks(db: Db, source: string, generation: number): Generator<RetainedChunk> {
  return pagedRecords((from, limit) => retainedPage(db, source, generation, from, limit));
}

/**
 * The retained bytes [from, to) of one (source, generation), or null where a
 * record is missing (a legacy gap). Bounded by the caller (a line's start,
 * at most WHOLE_LINE_MAX).
 */
export function retainedBytes(db: Db, source: string, generation: number, from: number, to: number): Uint8Array | null {
  const rows = db
    .prepare('SELECT offset, raw FROM conversation_records WHERE source = ? AND generation = ? AND offset < ? AND offset + length(raw) > ? ORDER BY offset')
    .all(source, generation, to, from) as RetainedChunk[];
  const parts: Buffer[] = [];
  let at = from;
  for (const row of rows) {
    if (row.offset > at) return null;
    const raw = Buffer.from(row.raw.buffer, row.raw.byteOffset, row.raw.byteLength);
    parts.push(raw.subarray(at - row.offset, Math.min(raw.length, to - row.offset)));
    at = Math.min(row.offset + raw.length, to);
  }
  return at === to ? Buffer.concat(parts) : null;
}

export function generationsOf(db: Db, source: string): number[] {
  return db.prepare('SELECT DISTINCT generation FROM conversation_records WHERE source = ? ORDER BY generation').pluck().all(source) as number[];
}

/**
 * Every retained generation of each of `sources` (row-shaped sources such as
 * bridge message envelopes, whose generations are the observed versions of
 * one row). Bounded by the caller: a few dozen small rows at a time.
 */
export function versionsOf(db: Db, sources: readonly string[]): RetainedVersion[] {
  const select = db.prepare('SELECT generation, offset, raw FROM conversation_records WHERE source = ? ORDER BY generation, offset');
  const out: RetainedVersion[] = [];
  for (const source of new Set(sources)) {
    const rows = select.all(source) as Array<{ generation: number; offset: number; raw: Uint8Array }>;
    let i = 0;
    while (i < rows.length) {
      const generation = (rows[i] as { generation: number }).generation;
      const parts: Uint8Array[] = [];
      while (i < rows.length && (rows[i] as { generation: number }).generation === generation) parts.push((rows[i++] as { raw: Uint8Array }).raw);
      out.push({ source, generation, raw: parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts) });
    }
  }
  return out;
}
