// Reading retained records back: the exact bytes of a source generation, the
// generations a source has. Works on any connection (writer or read-only).

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
