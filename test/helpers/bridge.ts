// Bridge-home test helpers: a generated 0.29.x bridge home (make-bridge-home.mjs)
// used as AGENT_BRIDGE_HOME, copies of it for independent scenarios, a
// history.db prepared the way a finished migration leaves it (empty, or with
// the legacy tables copied), and read-only views of what was captured.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openWriter } from '../../src/store/open.ts';
import { LEGACY_TABLES } from '../../src/store/schema.ts';
import { cli, envFor, fixturesDir, sha256, sqliteModule, tempDir } from './home.ts';

export interface BridgeManifest {
  readonly originalHome: string;
  readonly userVersion: number;
  readonly files: Array<{ path: string; original: string; bytes: number; sha256: string }>;
  readonly expected: { readonly bridgeRecords: BridgeRecords };
}

export interface BridgeRecords {
  readonly summary: Record<string, number>;
  readonly messages: Array<{ kind: string; id: string; recipient: string; rowid: number; conversation: string; location: 'bridge.db' | 'archive.db' }>;
  readonly rowidReuse: { archived: { id: string; recipient: string; rowid: number }; reused: { id: string; recipient: string; rowid: number } };
  readonly jobs: { activeNames: string[]; archivedNames: string[]; archiveFile: string };
  readonly runs: { logs: Array<{ path: string; finished: boolean }>; metadata: string[]; notRecognisedBy029: string[] };
  readonly approvals: Array<{ path: string; kind: string; job: string; bytes: number }>;
  readonly contextEvents?: { path: string; events: number; byKind: Record<string, number> };
  readonly envelopes?: { total: number; capturedInLegacy: number; uncaptured: Array<{ id: number; message: string; recipient: string }>; cursor: number };
  readonly jobSnapshots?: { capturedInLegacy: Array<{ name: string; sha256: string }>; notYetCaptured: string[] };
  readonly claimed?: unknown;
  readonly messageKinds: Record<string, unknown>;
}

/** Generate a bridge home (no 8 MiB unrelated blob: it only matters to the migration). */
export function generateBridgeHome(options: { userVersion?: 6 | 8; rows?: number } = {}): { dir: string; manifest: BridgeManifest } {
  const dir = join(tempDir('abh-bridge-'), 'home');
  const args = ['--blob-bytes', '0', '--rows', String(options.rows ?? 80), '--user-version', String(options.userVersion ?? 8)];
  execFileSync(process.execPath, [join(fixturesDir, 'make-bridge-home.mjs'), dir, ...args, '--sqlite-module', sqliteModule], { stdio: ['ignore', 'ignore', 'inherit'] });
  return { dir, manifest: JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as BridgeManifest };
}

/** An independent copy of a generated home (same bytes, new inodes). */
export function copyBridgeHome(dir: string): string {
  const copy = join(tempDir('abh-bridge-'), 'home');
  cpSync(dir, copy, { recursive: true, preserveTimestamps: true });
  return copy;
}

/** An environment whose bridge home is `dir` and whose CLI homes are empty folders beside it. */
export function bridgeEnv(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const user = join(dir, '..', 'user');
  mkdirSync(user, { recursive: true });
  return envFor(user, { AGENT_BRIDGE_HOME: dir, ...extra });
}

export const historyPath = (dir: string): string => join(dir, 'history.db');

/**
 * history.db as a finished migration leaves it: the schema, the migration
 * marked verified, and (with `legacy`) the 14 legacy tables copied from
 * bridge.db with their rowids. `relocate` maps the paths the fixture's rows
 * name (its original home) to the generated one, with the files' real
 * identities, as if the home had been captured on this machine.
 */
export function prepareHistory(dir: string, options: { legacy?: boolean; originalHome?: string } = {}): void {
  const db = openWriter(historyPath(dir));
  try {
    if (options.legacy === true) {
      db.prepare('ATTACH DATABASE ? AS legacy').run(join(dir, 'bridge.db'));
      db.transaction(() => {
        for (const table of LEGACY_TABLES) {
          const exists = db.prepare("SELECT 1 FROM legacy.sqlite_master WHERE type = 'table' AND name = ?").get(table);
          if (exists !== undefined) db.exec(`INSERT INTO main.${table} (rowid, ${columns(db, table)}) SELECT rowid, ${columns(db, table)} FROM legacy.${table}`);
        }
      })();
      db.exec('DETACH DATABASE legacy');
      if (options.originalHome !== undefined) relocate(db, options.originalHome, dir);
    }
    // As a verified migration leaves it: the legacy records up to the snapshot's
    // high-water mark are accounted for, so the tail replay starts after them.
    db.prepare('ATTACH DATABASE ? AS legacy').run(join(dir, 'bridge.db'));
    const hasRecords = db.prepare("SELECT 1 FROM legacy.sqlite_master WHERE type = 'table' AND name = 'conversation_records'").get() !== undefined;
    const highWater = hasRecords ? (db.prepare('SELECT max(id) FROM legacy.conversation_records').pluck().get() as number | null) : null;
    db.exec('DETACH DATABASE legacy');
    const manifest = { rowHash: 'bh-row-v1', tables: {}, absent: [], retained: [], recordsHighWater: highWater === null ? null : String(highWater), at: Date.now() };
    db.prepare("INSERT INTO history_migration (version, snapshot, status, manifest) VALUES (1, NULL, 'verified', ?)").run(JSON.stringify(manifest));
  } finally {
    db.close();
  }
}

function columns(db: Database.Database, table: string): string {
  return (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]).join(', ');
}

/**
 * Rewrite the original home's paths to `dir` in source ids, records and
 * cursors, and give each file source the identity of the file now at that
 * path. (conversation_records is append-only: its triggers are dropped and
 * recreated around the rewrite, in this test-only copy.)
 */
function relocate(db: Database.Database, from: string, to: string): void {
  const triggers = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'conversation_records'").all() as Array<{ name: string; sql: string }>;
  db.transaction(() => {
    for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`);
    db.prepare('UPDATE conversation_records SET source = replace(source, ?, ?) WHERE instr(source, ?) = 1').run(from, to, from);
    for (const t of triggers) db.exec(t.sql);
    db.prepare('UPDATE conversation_sources SET id = replace(id, ?, ?), path = replace(path, ?, ?) WHERE instr(id, ?) = 1').run(from, to, from, to, from);
    db.prepare('UPDATE history_cursors SET source = replace(source, ?, ?) WHERE instr(source, ?) > 0').run(from, to, from);
    for (const row of db.prepare("SELECT id FROM conversation_sources WHERE identity <> '' AND instr(id, ?) = 1").all(to) as Array<{ id: string }>) {
      const s = statSync(row.id);
      db.prepare('UPDATE conversation_sources SET identity = ? WHERE id = ?').run(`${s.dev}:${s.ino}:${s.birthtimeMs}`, row.id);
    }
  })();
}

export async function ingest(env: NodeJS.ProcessEnv): Promise<void> {
  const run = await cli(['ingest', '--once', '--pace', 'max'], env);
  assert.equal(run.code, 0, run.stderr);
}

/** A read-only view of history.db. */
export function withHistory<T>(dir: string, read: (db: Database.Database) => T): T {
  const db = new Database(historyPath(dir), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** A read-only view of a broker database, read from a copy (opening the original would create its -wal/-shm). */
export function withBroker<T>(path: string, read: (db: Database.Database) => T): T {
  const copy = join(tempDir('abh-broker-'), 'copy.db');
  cpSync(path, copy);
  const db = new Database(copy, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Every generation of a source, each reassembled from its records. */
export function versions(db: Database.Database, source: string): Buffer[] {
  const rows = db.prepare('SELECT generation, offset, raw FROM conversation_records WHERE source = ? ORDER BY generation, offset').all(source) as Array<{ generation: number; offset: number; raw: Buffer }>;
  const out = new Map<number, Buffer[]>();
  for (const row of rows) out.set(row.generation, [...(out.get(row.generation) ?? []), row.raw]);
  return [...out.values()].map((parts) => Buffer.concat(parts));
}

export function fileSha(path: string): string {
  return sha256(readFileSync(path));
}
