// A project replica's file: `conversations-<hash>.db`, its own schema version
// (mirror_meta 'schema', PRAGMA user_version) and application id, so it is
// never mistaken for history.db. Its tables are history.db's own (the same
// DDL: src/store/schema.ts), so search and conversation pages run on it
// unchanged; the ones a replica fills are listed in the README. Two tables
// are its own:
//   mirror_meta     key → value: schema, project, hash, created (epoch ms)
//   mirror_cursors  conversation → the last central record id copied; written
//                   in the same transaction as the records it covers
//
// Opening for writing creates a fresh file; a file that is not a replica of
// this project (not SQLite, another database, another project) is reported
// unusable, so the caller moves it to the backup folder and starts again; a
// replica from a newer release is left untouched.

import Database from 'better-sqlite3';
import { HistoryError } from '../../protocols/errors.ts';
import type { Db } from '../store/open.ts';
import { openQueryOnly } from '../sqlite/open.ts';
import { READER_BUSY_TIMEOUT_MS, registerFunctions, WRITER_BUSY_TIMEOUT_MS } from '../store/open.ts';
import { schemaSql } from '../store/schema.ts';
import { projectHash } from './location.ts';
import { holdAutomerge } from '../store/fts-merge.ts';

export const REPLICA_SCHEMA_VERSION = 1;
/** 'ABMR' (agent-bridge mirror replica). */
export const REPLICA_APPLICATION_ID = 0x41424d52;

const MIRROR_TABLES_SQL = `
CREATE TABLE mirror_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE mirror_cursors (
  conversation TEXT PRIMARY KEY,
  record INTEGER NOT NULL
);
`;

export type ReplicaOpen =
  | { readonly ok: true; readonly db: Db; readonly created: boolean }
  /** unusable: move aside and rebuild; newer: leave alone. */
  | { readonly ok: false; readonly kind: 'unusable' | 'newer'; readonly reason: string };

const CORRUPT = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

export function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (CORRUPT.has(code) || code.startsWith('SQLITE_CORRUPT'));
}

function meta(db: Db, key: string): string | undefined {
  return db.prepare('SELECT value FROM mirror_meta WHERE key = ?').pluck().get(key) as string | undefined;
}

/** What a replica file that opened is: ours, fresh, from a newer release, or something else. */
function identify(db: Db, project: string): 'ours' | 'fresh' | { kind: 'unusable' | 'newer'; reason: string } {
  const app = db.pragma('application_id', { simple: true }) as number;
  if (app === REPLICA_APPLICATION_ID) {
    const schema = Number(meta(db, 'schema') ?? db.pragma('user_version', { simple: true }));
    if (schema > REPLICA_SCHEMA_VERSION) return { kind: 'newer', reason: `the replica has schema ${schema}, newer than this release understands (${REPLICA_SCHEMA_VERSION}); it is left untouched` };
    const owner = meta(db, 'project');
    if (owner !== project) return { kind: 'unusable', reason: `the file holds the replica of another project (${owner ?? 'unknown'})` };
    return 'ours';
  }
  const objects = db.prepare('SELECT count(*) FROM sqlite_master').pluck().get() as number;
  if (app === 0 && objects === 0) return 'fresh';
  return { kind: 'unusable', reason: 'the file is not an agent-bridge replica' };
}

function create(db: Db, project: string, fts: boolean, now: number): void {
  db.transaction(() => {
    // Every body stored: a replica is read by other programs too, which have no history_span_text function.
    db.exec(schemaSql({ fts, storedBodies: true }));
    db.exec(MIRROR_TABLES_SQL);
    const put = db.prepare('INSERT INTO mirror_meta (key, value) VALUES (?, ?)');
    put.run('schema', String(REPLICA_SCHEMA_VERSION));
    put.run('project', project);
    put.run('hash', projectHash(project));
    put.run('created', String(now));
    db.prepare('INSERT OR IGNORE INTO conversation_projects (project) VALUES (?)').run(project);
    db.pragma(`application_id = ${REPLICA_APPLICATION_ID}`);
    db.pragma(`user_version = ${REPLICA_SCHEMA_VERSION}`);
  }).immediate();
}

/** Open (creating when new) the replica of `project` at `path` for writing. The caller checked the path for links. */
export function openReplicaWriter(path: string, project: string, options: { fts: boolean; now?: number }): ReplicaOpen {
  let db: Db;
  try {
    db = new Database(path);
  } catch (error) {
    if (isCorruption(error)) return { ok: false, kind: 'unusable', reason: `the file is not a SQLite database (${(error as Error).message})` };
    throw error;
  }
  try {
    db.pragma(`busy_timeout = ${WRITER_BUSY_TIMEOUT_MS}`);
    const what = identify(db, project);
    if (typeof what === 'object') {
      db.close();
      return { ok: false, ...what };
    }
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -2048');
    if (what === 'fresh') create(db, project, options.fts, options.now ?? Date.now());
    holdAutomerge(db);
    return { ok: true, db, created: what === 'fresh' };
  } catch (error) {
    if (db.open) db.close();
    if (isCorruption(error)) return { ok: false, kind: 'unusable', reason: `the file is damaged (${(error as Error).message})` };
    throw error;
  }
}

export interface ReplicaInfo {
  readonly project: string;
  readonly schema: number;
}

/** The replica's own facts, or null when `db` is not a replica. */
export function replicaInfo(db: Db): ReplicaInfo | null {
  if ((db.pragma('application_id', { simple: true }) as number) !== REPLICA_APPLICATION_ID) return null;
  return { project: meta(db, 'project') ?? '', schema: Number(meta(db, 'schema') ?? 0) };
}

/** Open a replica for reading only (consumers, `search --db`): never writes, never creates. */
export function openReplicaReader(path: string): Db {
  const db = openQueryOnly(path, READER_BUSY_TIMEOUT_MS);
  try {
    const info = replicaInfo(db);
    if (info === null) throw new HistoryError('BAD_INPUT', `${path} is not an agent-bridge project replica`, { path });
    if (info.schema > REPLICA_SCHEMA_VERSION) {
      throw new HistoryError('SCHEMA_TOO_NEW', `${path} has replica schema ${info.schema}; this build understands ${REPLICA_SCHEMA_VERSION}`, { path });
    }
    registerFunctions(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
