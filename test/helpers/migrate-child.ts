// Test driver: migrates the home named by AGENT_BRIDGE_HOME in this process
// (writer lock, history.db, MigrationRunner) and prints one JSON line per
// finished chunk (kind, table, rows, its rowid range) as it finishes inside
// its unit, one per committed unit, then {"done": phase}. Lines go to a pipe,
// which Node writes synchronously, so a parent that kills this process has
// read every line written before the kill. Killed at random moments by
// test/migration-kill.test.ts. Pace: env AGENT_BRIDGE_HISTORY_MIGRATION_IO_BYTES_PER_SECOND,
// or unpaced with MIGRATE_CHILD_PACE=max.

import { resolvePaths } from '../../src/config/paths.ts';
import { migrateHome } from '../../src/migration/migrate-home.ts';

const pace = process.env.MIGRATE_CHILD_PACE === 'max' ? 'max' : 'spec';
const id = (v: bigint | null): string | null => (v === null ? null : String(v));
const result = await migrateHome({
  paths: resolvePaths(process.env),
  pace,
  transientAttempts: 1,
  onChunk: (e) => process.stdout.write(`${JSON.stringify({ kind: e.kind, table: e.table, rows: e.rows, after: id(e.after), end: id(e.end) })}\n`),
  onUnit: (e) => process.stdout.write(`${JSON.stringify({ unit: e.kind, table: e.table, chunks: e.chunks })}\n`),
});
process.stdout.write(`${JSON.stringify({ done: result.progress.phase, error: result.progress.error })}\n`);
