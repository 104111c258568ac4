// Reading retained records back: the exact bytes of a source generation, the
// generations a source has. Works on any connection (writer or read-only).

import type { RetainedVersion } from '../../protocols/history.ts';
import type { Db } from './open.ts';

export interface RetainedChunk {
  readonly offset: number;
  readonly raw: Uint8Array;
}

const PAGE = 8;

/**
 * The records of one (source, generation), in offset order. Fetched a few at
 * a time by separate queries, so no statement stays open while the consumer
 * awaits (better-sqlite3 refuses other statements during an open iterator).
 */
export function* retainedChunks(db: Db, source: string, generation: number): Generator<RetainedChunk> {
  const page = db.prepare('SELECT offset, raw FROM conversation_records WHERE source = ? AND generation = ? AND offset >= ? ORDER BY offset LIMIT ?');
  let from = 0;
  for (;;) {
    const rows = page.all(source, generation, from, PAGE) as RetainedChunk[];
    for (const row of rows) yield row;
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1] as RetainedChunk;
    from = last.offset + 1;
  }
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
