// Runs every doctor check in order. A check that throws is reported as a
// failure naming the error (never a stack trace); checks that open a SQLite
// database are not run when better-sqlite3 does not load.

import type { CheckLevel, DoctorCheck, DoctorReport } from '../../protocols/doctor.ts';
import type { Check, DoctorContext } from './check.ts';
import { fail, messageOf, warn } from './check.ts';
import { checkConfig } from './config.ts';
import { checkDashboardToken } from './dashboard-token.ts';
import { checkDisk, checkMigration } from './migration.ts';
import { checkOpenCode } from './opencode.ts';
import { checkHistoryDbFiles, checkHome } from './permissions.ts';
import { checkRoots } from './roots.ts';
import { checkCode, checkFts5Build, checkNode, checkSqlite } from './runtime.ts';
import { checkStore, checkWal } from './store.ts';
import { checkService, checkWriterLock } from './writer.ts';

interface Step {
  readonly id: string;
  readonly run: Check;
  /** Opens SQLite: skipped when better-sqlite3 does not load. */
  readonly sqlite: boolean;
}

const STEPS: readonly Step[] = [
  { id: 'node', run: () => checkNode(), sqlite: false },
  { id: 'code', run: (ctx) => checkCode(undefined, ctx.env), sqlite: false },
  { id: 'sqlite', run: () => checkSqlite(), sqlite: false },
  { id: 'fts5', run: () => checkFts5Build(), sqlite: true },
  { id: 'home', run: (ctx) => checkHome(ctx.paths), sqlite: false },
  { id: 'history-db', run: (ctx) => checkHistoryDbFiles(ctx.paths), sqlite: false },
  { id: 'schema', run: (ctx) => checkStore(ctx.paths), sqlite: true },
  { id: 'wal', run: (ctx) => checkWal(ctx.paths), sqlite: false },
  { id: 'writer-lock', run: checkWriterLock, sqlite: false },
  { id: 'service', run: checkService, sqlite: false },
  { id: 'migration', run: checkMigration, sqlite: false },
  { id: 'disk', run: (ctx) => checkDisk(ctx), sqlite: false },
  { id: 'root', run: checkRoots, sqlite: false },
  { id: 'opencode', run: checkOpenCode, sqlite: true },
  { id: 'config', run: checkConfig, sqlite: false },
  { id: 'dashboard-token', run: checkDashboardToken, sqlite: false },
];

export async function runDoctor(ctx: DoctorContext): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  let sqlite = true;
  for (const step of STEPS) {
    if (step.sqlite && !sqlite) {
      checks.push(warn(step.id, step.id, 'not checked: better-sqlite3 does not load', 'fix better-sqlite3 first (see above)'));
      continue;
    }
    try {
      const results = await step.run(ctx);
      checks.push(...results);
      if (step.id === 'sqlite') sqlite = results.every((r) => r.level !== 'fail');
    } catch (error) {
      checks.push(fail(step.id, step.id, `the check itself failed: ${messageOf(error)}`, 'report this with the message above'));
    }
  }
  const counts: Record<CheckLevel, number> = { ok: 0, warn: 0, fail: 0 };
  for (const check of checks) counts[check.level]++;
  return { home: ctx.paths.bridgeHome, checks, counts };
}
