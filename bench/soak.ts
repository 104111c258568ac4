// bench/soak: SIGKILLs at random moments across the legacy migration, capture
// and reindex, with source files appended to, truncated, moved, rewritten and
// replaced between kills; after every restart the store is checked (see
// lib/soak-checks.ts: exact bytes, no duplicate key, no lost record, facets
// and FTS consistent with the documents), and every few trials a run to
// completion with --verify proves every file equals its current generation.
// Not part of `npm test`. Run it under the heavy lock:
//
//   flock /tmp/heavy.lock node --import tsx bench/soak.ts [--kills N] [--migration-kills M] [--rows R] [--seed S] [--dir DIR] [--keep]
//
// Prints trials, kills, failures and the slowest recovery (a run to
// completion right after a kill: start-up, resume, catch-up). Exit code 1 if
// any check failed.

import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fixturesDir, prng, sqliteModule } from '../test/helpers/home.ts';
import { checkStore, newSeen } from './lib/soak-checks.ts';
import { hasTable, registerFunctions } from '../src/store/open.ts';
import { documentTextSql } from '../src/store/schema.ts';
import { SoakFiles } from './lib/soak-files.ts';
import { legacyRowsKept, migrationStatus } from './lib/soak-migration.ts';

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '170' },
    'migration-kills': { type: 'string', default: '40' },
    rows: { type: 'string', default: '30000' },
    seed: { type: 'string', default: '1010' },
    dir: { type: 'string', default: '/tmp/issue-10-integrity/soak' },
    keep: { type: 'boolean', default: false },
  },
});
const KILLS = Number(values.kills);
const MIGRATION_KILLS = Number(values['migration-kills']);
const random = prng(Number(values.seed));
const dir = values.dir as string;
const cli = join(import.meta.dirname, '..', 'bin', 'agent-bridge');

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const bridgeHome = join(dir, 'bridge-home');
const sourcesHome = join(dir, 'user');
const baseEnv: NodeJS.ProcessEnv = { ...process.env, HOME: sourcesHome, AGENT_BRIDGE_HOME: bridgeHome, XDG_DATA_HOME: join(dir, 'xdg') };
for (const k of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'OPENCODE_DB', 'AGENT_BRIDGE_HISTORY_INGEST']) delete baseEnv[k];
const historyDb = join(bridgeHome, 'history.db');

interface Run {
  readonly killed: boolean;
  readonly code: number | null;
  readonly ms: number;
  readonly stderr: string;
}

function run(args: readonly string[], env: NodeJS.ProcessEnv, killAfterMs: number | null): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const timer = killAfterMs === null ? null : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      if (timer !== null) clearTimeout(timer);
      resolve({ killed: signal === 'SIGKILL', code, ms: performance.now() - started, stderr });
    });
  });
}

const failures: string[] = [];
const recoveries: Array<{ phase: string; ms: number }> = [];
let kills = 0;
let trials = 0;
let typicalRunMs = 4000;

function fail(phase: string, trial: number, what: readonly string[]): void {
  for (const f of what) failures.push(`${phase} #${trial}: ${f}`);
}

/** A run killed at a random moment from start-up to about the end of a typical run. */
async function killedRun(phase: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  trials++;
  const delay = 250 + Math.floor(random() * Math.max(1000, typicalRunMs * 1.2));
  const r = await run(args, env, delay);
  if (r.killed) kills++;
  else if (r.code !== 0) fail(phase, trials, [`${args.join(' ')} exited ${r.code}: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`]);
  return r.killed;
}

/** A run to completion; after a kill its time is a recovery. */
async function completeRun(phase: string, args: readonly string[], env: NodeJS.ProcessEnv, afterKill: boolean): Promise<void> {
  const r = await run(args, env, null);
  if (r.code !== 0) fail(phase, trials, [`${args.join(' ')} exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' ')}`]);
  // Kills land from start-up to a little past a typical run (capped: a long catch-up is not typical).
  typicalRunMs = Math.min(6000, 0.7 * typicalRunMs + 0.3 * r.ms);
  if (afterKill) recoveries.push({ phase, ms: r.ms });
}

// ---- phase 1: the legacy migration -----------------------------------------
const t0 = performance.now();
await new Promise<void>((resolve, reject) => {
  const gen = spawn(process.execPath, [join(fixturesDir, 'make-bridge-home.mjs'), bridgeHome, '--force', '--rows', String(values.rows), '--sqlite-module', sqliteModule], { stdio: 'ignore' });
  gen.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`make-bridge-home exited ${code}`))));
});
const migrationEnv = { ...baseEnv, CLAUDE_CONFIG_DIR: join(dir, 'no-claude'), CODEX_HOME: join(dir, 'no-codex') };
const seen = newSeen();
{
  const legacy = new Database(join(bridgeHome, 'bridge.db'), { readonly: true });
  seen.legacyDocuments = (legacy.prepare('SELECT max(rowid) FROM history_documents').pluck().get() as number | null) ?? 0;
  legacy.close();
}
let migrationKills = 0;
for (let i = 0; i < MIGRATION_KILLS * 3 && migrationKills < MIGRATION_KILLS; i++) {
  const status = migrationStatus(historyDb);
  if (status === 'verified') break;
  if (await killedRun('migration', ['ingest', '--once', '--pace', 'spec'], migrationEnv)) migrationKills++;
  if (migrationStatus(historyDb) !== null) fail('migration', trials, checkStore(historyDb, new SoakFiles(sourcesHome, random), [], seen, false));
}
await completeRun('migration', ['ingest', '--once', '--pace', 'spec'], migrationEnv, migrationKills > 0);
if (migrationStatus(historyDb) !== 'verified') fail('migration', trials, [`migration ended ${migrationStatus(historyDb)}`]);
fail('migration', trials, legacyRowsKept(join(bridgeHome, 'bridge.db'), historyDb));
fail('migration', trials, checkStore(historyDb, new SoakFiles(sourcesHome, random), [], seen, false));
console.log(`migration: ${migrationKills} kills, migration ${migrationStatus(historyDb)}, ${((performance.now() - t0) / 1000).toFixed(0)} s`);

// ---- phase 2 and 3: capture, then capture and reindex ----------------------
const env = { ...baseEnv, CLAUDE_CONFIG_DIR: join(sourcesHome, '.claude'), CODEX_HOME: join(sourcesHome, '.codex') };
const roots = [join(sourcesHome, '.claude'), join(sourcesHome, '.codex')];
const files = new SoakFiles(sourcesHome, random);
for (let i = 0; i < 30; i++) files.create(i % 2 === 0 ? 'claude' : 'codex', 20 + Math.floor(random() * 300));
const captureKills = Math.round(KILLS * 0.7);
let phaseKills = 0;
for (let trial = 0; phaseKills < KILLS; trial++) {
  const phase = phaseKills < captureKills ? 'capture' : 'reindex';
  const ops = 1 + Math.floor(random() * 3);
  for (let i = 0; i < ops; i++) files.mutate();
  const reindex = phase === 'reindex' && random() < 0.6;
  const killed = await killedRun(phase, reindex ? ['reindex'] : ['ingest', '--once', '--pace', 'spec'], env);
  if (killed) phaseKills++;
  fail(phase, trials, checkStore(historyDb, files, roots, seen, false));
  if (trial % 7 === 6) {
    await completeRun(phase, ['ingest', '--once', '--pace', 'max', '--verify'], env, killed);
    fail(phase, trials, checkStore(historyDb, files, roots, seen, true));
  }
  if (trial % 20 === 19) console.log(`${phase}: trial ${trial + 1}, ${phaseKills} kills, ${failures.length} failures so far`);
}
await completeRun('reindex', ['ingest', '--once', '--pace', 'max', '--verify'], env, true);
fail('final', trials, checkStore(historyDb, files, roots, seen, true));
// A reindex after the storm derives exactly the documents the store holds.
const documents = (): string => {
  const db = new Database(historyDb, { readonly: true });
  registerFunctions(db);
  try {
    // The text of span documents is derived from their record (documentTextSql); compare that, not the empty body.
    const text = documentTextSql(hasTable(db, 'history_document_spans'));
    return JSON.stringify(db.prepare(`SELECT d.id, d.kind, d.agent, d.at, ${text} AS body FROM history_documents d WHERE d.id LIKE 'durable:%' ORDER BY d.id`).all());
  } finally {
    db.close();
  }
};
const before = documents();
await completeRun('final', ['reindex'], env, false);
if (documents() !== before) fail('final', trials, ['a reindex after the kills derived other documents than the store held']);

console.log(`\ntrials: ${trials}`);
console.log(`kills:  ${kills} (migration ${migrationKills}, capture and reindex ${phaseKills})`);
console.log(`failures: ${failures.length}`);
for (const f of failures.slice(0, 50)) console.log(`  ${f}`);
const slowest = recoveries.reduce((a, b) => (b.ms > a.ms ? b : a), { phase: '-', ms: 0 });
const sorted = recoveries.map((r) => r.ms).sort((a, b) => a - b);
console.log(`recoveries: ${recoveries.length} timed; slowest ${(slowest.ms / 1000).toFixed(1)} s (${slowest.phase}), median ${((sorted[Math.floor(sorted.length / 2)] ?? 0) / 1000).toFixed(1)} s`);
if (values.keep !== true) rmSync(dir, { recursive: true, force: true });
process.exitCode = failures.length === 0 ? 0 : 1;
