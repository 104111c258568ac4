// The migration progress object, computed from the progress tables: live by
// the runner (with the rows of chunks finished since the pass started), or
// from disk by `agent-bridge status` when no service runs (history.db's
// history_migration row plus the progress database, both read-only).

import type { MigrationPass, MigrationProgress } from '../../protocols/migration.ts';
import { MIGRATION_PASSES } from '../../protocols/migration.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { openReader } from '../store/open.ts';
import { openLegacyReader } from '../store/read-path.ts';
import { hasAnyLegacyTable } from './legacy-tables.ts';
import { failureOf, manifestOf, readMigrationRow } from './migration-row.ts';
import type { TableState } from './progress-db.ts';
import { ProgressStore } from './progress-db.ts';
import { emptyProgress } from './progress-object.ts';
import { locateSnapshot, openMigrationReader, progressPathOf } from './snapshot-files.ts';

export { emptyProgress } from './progress-object.ts';

export interface PassTotals {
  readonly percent: number;
  readonly rowsDone: number;
  readonly rowsTotal: number;
}

/** Percent over the four passes (each a quarter), and the current pass's rows. */
export function summarize(tables: readonly TableState[], pass: MigrationPass, liveRows = 0): PassTotals {
  const total = (p: MigrationPass): number =>
    tables.reduce((n, t) => n + (p === 'snapshot' ? Math.max(t.estimate, t.passes.snapshot.rows) : t.passes.snapshot.rows), 0);
  const index = MIGRATION_PASSES.indexOf(pass);
  const rowsTotal = total(pass);
  const rowsDone = Math.min(rowsTotal, tables.reduce((n, t) => n + t.passes[pass].rows, 0) + liveRows);
  const fraction = rowsTotal === 0 ? 0 : rowsDone / rowsTotal;
  const percent = Math.min(99.99, ((index + fraction) / MIGRATION_PASSES.length) * 100);
  return { percent: Math.round(percent * 100) / 100, rowsDone, rowsTotal };
}

/** bridge.db exists and holds at least one legacy history table (there is something to migrate). */
export function bridgeHasLegacyTables(paths: HistoryPaths): boolean {
  const bridge = openLegacyReader(paths.bridgeDb);
  try {
    return bridge !== null && hasAnyLegacyTable(bridge);
  } finally {
    bridge?.close();
  }
}

/** Progress as the files show it, for a process that does not run the migration. Null: nothing to migrate, nothing migrated. */
export function readMigrationProgress(paths: HistoryPaths): MigrationProgress | null {
  const history = openReader(paths.historyDb);
  if (history === null) return bridgeHasLegacyTables(paths) ? emptyProgress('starting') : null;
  let row;
  try {
    row = readMigrationRow(history);
  } finally {
    history.close();
  }
  if (row === null) return emptyProgress('starting');
  const snapshot = row.snapshot;
  if (row.status === 'verified') {
    const manifest = manifestOf(row);
    const rows = manifest === null ? 0 : Object.values(manifest.tables).reduce((n, t) => n + t.rows, 0);
    return emptyProgress('verified', { snapshot, rowsDone: rows, rowsTotal: rows });
  }
  const failure = failureOf(row);
  const located = locateSnapshot(paths, snapshot);
  const progressDb = located === null ? null : openMigrationReader(progressPathOf(located));
  if (progressDb === null) return emptyProgress(failure !== null ? 'failed' : 'starting', { snapshot, error: failure?.error ?? null });
  try {
    const store = new ProgressStore(progressDb);
    const phase = store.phase();
    const pass: MigrationPass = phase === 'verified' ? 'verify' : phase;
    const totals = summarize(store.tables(), pass);
    return emptyProgress(failure !== null ? 'failed' : pass, { ...totals, pass, snapshot, error: failure?.error ?? null });
  } catch {
    // The progress database is being created or is busy: report what the row says.
    return emptyProgress(failure !== null ? 'failed' : 'starting', { snapshot, error: failure?.error ?? null });
  } finally {
    progressDb.close();
  }
}
