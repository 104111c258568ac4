// What the scrubber (src/ingest/scrubber.ts) reads and keeps in the store:
// the retained records it compares with the files, and its progress, kept in
// history_cursors under `scrub` (one small row, rewritten at most every few
// seconds; nothing else of its own). Read functions work on any connection.

import type { RetainedSpan, ScrubProgress } from '../../protocols/history.ts';
import type { Db } from './open.ts';
import { prepared } from './statements.ts';

export const SCRUB_KEY = 'scrub';

export const EMPTY_SCRUB: ScrubProgress = {
  sweeps: 0,
  lastSweepStartedAt: null,
  lastSweepAt: null,
  sweepStartedAt: null,
  after: '',
  sweepSources: 0,
  sweepBytes: 0,
  sweepMismatches: 0,
  lastSweep: null,
  verifiedBytes: 0,
  mismatches: 0,
  lastMismatch: null,
};

export function loadScrubProgress(db: Db): ScrubProgress {
  const text = prepared(db, 'SELECT cursor FROM history_cursors WHERE source = ?').pluck().get(SCRUB_KEY) as string | undefined;
  if (text === undefined) return EMPTY_SCRUB;
  try {
    return { ...EMPTY_SCRUB, ...(JSON.parse(text) as Partial<ScrubProgress>) };
  } catch {
    return EMPTY_SCRUB;
  }
}

export function saveScrubProgress(db: Db, progress: ScrubProgress): void {
  prepared(db, 'INSERT INTO history_cursors (source, cursor) VALUES (?, ?) ON CONFLICT(source) DO UPDATE SET cursor = excluded.cursor').run(SCRUB_KEY, JSON.stringify(progress));
}

/**
 * Records of (source, generation) from `offset` on, in offset order, until
 * their bytes reach `maxBytes` (at least one record). The sizes are read
 * first (length() of a blob does not load it), so no record past the budget
 * is loaded.
 */
export function spansFrom(db: Db, source: string, generation: number, offset: number, maxBytes: number): RetainedSpan[] {
  const sizes = prepared(db, 'SELECT offset, length(raw) AS size FROM conversation_records WHERE source = ? AND generation = ? AND offset >= ? ORDER BY offset LIMIT 16').all(
    source,
    generation,
    offset,
  ) as Array<{ offset: number; size: number }>;
  let bytes = 0;
  let count = 0;
  for (const row of sizes) {
    if (count > 0 && bytes + row.size > maxBytes) break;
    bytes += row.size;
    count++;
  }
  if (count === 0) return [];
  const last = (sizes[count - 1] as { offset: number }).offset;
  return prepared(db, 'SELECT offset, raw FROM conversation_records WHERE source = ? AND generation = ? AND offset >= ? AND offset <= ? ORDER BY offset').all(
    source,
    generation,
    offset,
    last,
  ) as RetainedSpan[];
}

/** The record of (source, generation) that holds the byte at `offset`, if one does. */
export function spanAt(db: Db, source: string, generation: number, offset: number): RetainedSpan | undefined {
  const row = prepared(db, 'SELECT offset, raw FROM conversation_records WHERE source = ? AND generation = ? AND offset <= ? ORDER BY offset DESC LIMIT 1').get(
    source,
    generation,
    offset,
  ) as RetainedSpan | undefined;
  return row !== undefined && offset < row.offset + row.raw.length ? row : undefined;
}
