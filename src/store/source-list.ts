// Sources for the dashboard: every file source (conversation_sources) with
// each retained generation's record count, bytes and record times, paged by
// source id; and a generation's exact bytes a page at a time, for downloads.
// Only ids found in the store are read: a request never names a file path.

import type { RawPage, RawSourceInfo, SourceGeneration, SourceListOutput, SourceListRequest, SourceSummary } from '../../protocols/dashboard.ts';
import type { Db } from './open.ts';
import { hasTable } from './open.ts';
import { generationsOf } from './records.ts';
import { prepared } from './statements.ts';

type SourceRow = Omit<SourceSummary, 'generations'>;

export function listSources(db: Db, request: SourceListRequest): SourceListOutput {
  if (!hasTable(db, 'conversation_sources') || !hasTable(db, 'conversation_records')) return { sources: [], next: null };
  const rows = prepared(
    db,
    'SELECT id, path, format, conversation, generation, offset FROM conversation_sources WHERE id > ? ORDER BY id LIMIT ?',
  ).all(request.after ?? '', request.limit + 1) as SourceRow[];
  const generations = prepared(
    db,
    `SELECT generation, count(*) AS records, coalesce(sum(length(raw)), 0) AS bytes, CAST(min(at) AS INTEGER) AS firstAt, CAST(max(at) AS INTEGER) AS lastAt
     FROM conversation_records WHERE source = ? GROUP BY generation ORDER BY generation`,
  );
  const page: SourceSummary[] = rows.slice(0, request.limit).map((row) => ({ ...row, generations: generations.all(row.id) as SourceGeneration[] }));
  return { sources: page, next: rows.length > request.limit ? (page.at(-1)?.id ?? null) : null };
}

/** A source's path and retained generations, or null when the store holds no record of it. */
export function rawSourceInfo(db: Db, source: string): RawSourceInfo | null {
  if (!hasTable(db, 'conversation_records')) return null;
  const generations = generationsOf(db, source);
  if (generations.length === 0) return null;
  const path = hasTable(db, 'conversation_sources') ? (prepared(db, 'SELECT path FROM conversation_sources WHERE id = ?').pluck().get(source) as string | undefined) : undefined;
  return { path: path ?? source, generations };
}

/**
 * The bytes of one generation from offset `from`: whole records in offset
 * order, up to about `budget` bytes (at least one record). Concatenating the
 * pages, following `next`, gives the exact captured bytes.
 */
export function rawGenerationPage(db: Db, source: string, generation: number, from: number, budget: number): RawPage {
  const select = prepared(db, 'SELECT offset, length(raw) AS size FROM conversation_records WHERE source = ? AND generation = ? AND offset >= ? ORDER BY offset LIMIT 64');
  const sizes = select.all(source, generation, from) as Array<{ offset: number; size: number }>;
  let bytes = 0;
  let count = 0;
  for (const row of sizes) {
    if (count > 0 && bytes + row.size > budget) break;
    bytes += row.size;
    count++;
  }
  if (count === 0) return { generation, bytes: new Uint8Array(0), next: null };
  const last = sizes[count - 1] as { offset: number; size: number };
  const chunks = prepared(db, 'SELECT raw FROM conversation_records WHERE source = ? AND generation = ? AND offset >= ? AND offset <= ? ORDER BY offset')
    .pluck()
    .all(source, generation, from, last.offset) as Uint8Array[];
  const more = count < sizes.length || sizes.length === 64;
  return { generation, bytes: chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks), next: more ? last.offset + 1 : null };
}
