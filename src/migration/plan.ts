// Planning a table for the snapshot: its state at a generation, taken from
// what a source view shows (CREATE statement, columns, append-only guard,
// rowid high-water mark), and the matching empty table in the snapshot file.

import type { LegacyTableInfo } from './legacy-tables.ts';
import type { TableState } from './progress-db.ts';
import { freshPasses } from './progress-db.ts';
import type { TableShape } from './rows.ts';
import type { SnapshotWriter } from './snapshot-files.ts';
import { hasTable } from '../store/open.ts';

export function shapeOf(t: Pick<TableState, 'name' | 'columns'>): TableShape {
  return { name: t.name, columns: t.columns.map((c) => c.name) };
}

/** A table's state at generation `generation`, planned from what the view shows. */
export function plannedState(info: LegacyTableInfo, generation: number): TableState {
  const estimate = info.maxRowid === null || info.minRowid === null ? 0 : Number(info.maxRowid - info.minRowid + 1n);
  return {
    name: info.name,
    position: info.position,
    generation,
    sql: info.sql,
    columns: info.columns,
    appendOnly: info.appendOnly,
    upper: info.maxRowid,
    estimate,
    passes: freshPasses(),
  };
}

/**
 * Create the table in the snapshot and record its plan (inside the caller's
 * unit). The snapshot commits before the progress database, so after a crash
 * between the two the table exists, empty, without a plan: it is kept.
 */
export function addPlannedTable(writer: SnapshotWriter, info: LegacyTableInfo, generation: number): void {
  if (!hasTable(writer.db, info.name)) writer.db.exec(info.sql);
  writer.progress.saveTable(plannedState(info, generation));
}
