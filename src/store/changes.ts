// What changed since a record id, for the dashboard's live updates: the
// highest record id now and the conversations that gained records (bounded:
// at most a few thousand new records are examined per call; the rest are
// reported as `more`). Activity per agent and day for the status chart.

import { ACTIVITY_DAYS, CHANGES_CONVERSATIONS_MAX, type ActivityOutput, type Changes } from '../../protocols/dashboard.ts';
import type { Db } from './open.ts';
import { hasTable } from './open.ts';
import { prepared } from './statements.ts';

const SCAN_RECORDS = 4096;
const DAY_MS = 86_400_000;

export function maxRecordId(db: Db): number {
  if (!hasTable(db, 'conversation_records')) return 0;
  return (prepared(db, 'SELECT max(id) FROM conversation_records').pluck().get() as number | null) ?? 0;
}

export function changesSince(db: Db, since: number): Changes {
  const maxRecord = maxRecordId(db);
  if (maxRecord <= since) return { maxRecord, conversations: [], more: false };
  const rows = prepared(
    db,
    `SELECT conversation AS id, max(id) AS lastRecord FROM (SELECT conversation, id FROM conversation_records WHERE id > ? ORDER BY id LIMIT ${SCAN_RECORDS})
     GROUP BY conversation ORDER BY lastRecord DESC LIMIT ${CHANGES_CONVERSATIONS_MAX + 1}`,
  ).all(since) as Array<{ id: string; lastRecord: number }>;
  const scannedAll = (prepared(db, `SELECT count(*) FROM (SELECT 1 FROM conversation_records WHERE id > ? LIMIT ${SCAN_RECORDS + 1})`).pluck().get(since) as number) <= SCAN_RECORDS;
  return { maxRecord, conversations: rows.slice(0, CHANGES_CONVERSATIONS_MAX), more: rows.length > CHANGES_CONVERSATIONS_MAX || !scannedAll };
}

/**
 * Captured lines (search documents) per agent per UTC day over the last
 * ACTIVITY_DAYS days up to `now`. Reads the small facets table where it
 * exists (history.db), the documents otherwise (legacy bridge.db).
 */
export function activity(db: Db, now: number): ActivityOutput {
  const today = Math.floor(now / DAY_MS);
  const firstDay = today - ACTIVITY_DAYS + 1;
  const from = firstDay * DAY_MS;
  const series: Record<string, number[]> = {};
  if (!hasTable(db, 'history_documents')) return { from, days: ACTIVITY_DAYS, series };
  const table = hasTable(db, 'history_document_facets') ? 'history_document_facets' : 'history_documents';
  const rows = prepared(db, `SELECT agent, CAST(at / ${DAY_MS} AS INTEGER) AS day, count(*) AS n FROM ${table} WHERE at >= ? AND at < ? GROUP BY agent, day`).all(
    from,
    (today + 1) * DAY_MS,
  ) as Array<{ agent: string; day: number; n: number }>;
  for (const row of rows) {
    const days = (series[row.agent] ??= new Array<number>(ACTIVITY_DAYS).fill(0));
    const index = row.day - firstDay;
    if (index >= 0 && index < ACTIVITY_DAYS) days[index] = (days[index] ?? 0) + row.n;
  }
  return { from, days: ACTIVITY_DAYS, series };
}
