// Every retained generation of every file source, for `agent-bridge sources`:
// how many bytes each holds and when they were captured. A user whose file
// was truncated sees that generation 0 still exists before asking `raw
// --generation 0` for it.
//
// history_generations is kept by a trigger on conversation_records (so every
// writer keeps it: capture, the migration's copy, recovery), one row per
// (file source, generation). Capture times are the writer's clock at commit.
// A store created before the table gets it, filled from its records, when the
// writer first opens it; those rows have no capture times (null: unknown).
// Never deleted: it describes retained records, which are never deleted.

import type { Db } from './open.ts';
import { hasTable } from './open.ts';

export const GENERATIONS_SQL = `
CREATE TABLE IF NOT EXISTS history_generations (
  source TEXT NOT NULL,
  generation INTEGER NOT NULL,
  records INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  first_captured_at INTEGER,
  last_captured_at INTEGER,
  PRIMARY KEY (source, generation)
);
CREATE TRIGGER IF NOT EXISTS history_generations_insert AFTER INSERT ON conversation_records
WHEN EXISTS (SELECT 1 FROM conversation_sources WHERE id = new.source) BEGIN
  INSERT INTO history_generations (source, generation, records, bytes, first_captured_at, last_captured_at)
    VALUES (new.source, new.generation, 1, length(new.raw), CAST(unixepoch('subsec') * 1000 AS INTEGER), CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (source, generation) DO UPDATE SET
      records = records + 1, bytes = bytes + excluded.bytes, last_captured_at = excluded.last_captured_at;
END;
`;

/**
 * Rows for every (file source, generation) that has records and no row yet:
 * a store created before the table, sources registered after their records
 * (recovery). Their capture times are unknown (null).
 */
export function fillGenerations(db: Db): void {
  db.exec(`
    INSERT OR IGNORE INTO history_generations (source, generation, records, bytes, first_captured_at, last_captured_at)
      SELECT r.source, r.generation, count(*), sum(length(r.raw)), NULL, NULL
      FROM conversation_records r JOIN conversation_sources s ON s.id = r.source
      GROUP BY r.source, r.generation`);
}

export interface GenerationInfo {
  readonly generation: number;
  /** Captured bytes of this generation. */
  readonly bytes: number;
  /** Epoch ms of the first and the last capture into it; null when captured before capture times were kept. */
  readonly firstCapturedAt: number | null;
  readonly lastCapturedAt: number | null;
}

interface Row {
  source: string;
  generation: number;
  bytes: number;
  first: number | null;
  last: number | null;
}

/**
 * The retained generations of every file source, oldest first. A read-only
 * connection to a store the writer has not upgraded yet computes them from the
 * records (no capture times).
 */
export function generationsBySource(db: Db): Map<string, GenerationInfo[]> {
  const rows = hasTable(db, 'history_generations')
    ? (db
        .prepare('SELECT source, generation, bytes, first_captured_at AS first, last_captured_at AS last FROM history_generations ORDER BY source, generation')
        .all() as Row[])
    : (db
        .prepare(
          `SELECT r.source, r.generation, sum(length(r.raw)) AS bytes, NULL AS first, NULL AS last
           FROM conversation_records r JOIN conversation_sources s ON s.id = r.source GROUP BY r.source, r.generation ORDER BY r.source, r.generation`,
        )
        .all() as Row[]);
  const out = new Map<string, GenerationInfo[]>();
  for (const row of rows) {
    const list = out.get(row.source) ?? [];
    list.push({ generation: row.generation, bytes: row.bytes, firstCapturedAt: row.first, lastCapturedAt: row.last });
    out.set(row.source, list);
  }
  return out;
}
