// Test driver: migrates the home named by AGENT_BRIDGE_HOME in this process
// (writer lock, history.db, MigrationRunner) and prints one JSON line per
// finished chunk, then {"done": phase}. Killed at random moments by
// test/migration-kill.test.ts. Pace: env AGENT_BRIDGE_HISTORY_MIGRATION_IO_BYTES_PER_SECOND,
// or unpaced with MIGRATE_CHILD_PACE=max.

import { resolvePaths } from '../../src/config/paths.ts';
import { migrateHome } from '../../src/migration/migrate-home.ts';

const pace = process.env.MIGRATE_CHILD_PACE === 'max' ? 'max' : 'spec';
const result = await migrateHome({
  paths: resolvePaths(process.env),
  pace,
  transientAttempts: 1,
  onChunk: (event) => process.stdout.write(`${JSON.stringify({ kind: event.kind, table: event.table, rows: event.rows })}\n`),
});
process.stdout.write(`${JSON.stringify({ done: result.progress.phase, error: result.progress.error })}\n`);
