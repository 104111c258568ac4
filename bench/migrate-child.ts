// Bench driver for the resume-after-kill trial: migrates AGENT_BRIDGE_HOME
// unpaced in this process and prints, per finished chunk, its kind, rows,
// bytes and a timestamp (ms since this process started), so the parent can
// kill it at a chosen moment and measure what the restart costs.

import { resolvePaths } from '../src/config/paths.ts';
import { migrateHome } from '../src/migration/migrate-home.ts';

const result = await migrateHome({
  paths: resolvePaths(process.env),
  pace: 'max',
  transientAttempts: 3,
  onChunk: (e) => process.stdout.write(`${JSON.stringify({ kind: e.kind, rows: e.rows, bytes: e.bytes, ms: e.ms, t: performance.now() })}\n`),
});
process.stdout.write(`${JSON.stringify({ done: result.progress.phase, t: performance.now() })}\n`);
