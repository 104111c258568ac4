// Opening an OpenCode database without changing anything beside it.
//
// SQLite creates `-wal` and `-shm` files when a WAL database is opened, even
// read-only, and a read-only connection cannot remove them again (and
// better-sqlite3 has no URI filenames, so `immutable=1` is not available).
// So how a database is read depends on what is there:
//   direct    rollback-journal database: a read-only connection creates nothing;
//   live      WAL database with its -wal and -shm present (OpenCode has it
//             open): a read-only connection shares them, as any reader does;
//   snapshot  WAL database without them (OpenCode closed it): the files are
//             copied into our own directory and the copy is read (snapshot.ts).
// Every connection is read-only with query_only and a short busy timeout (the
// worker thread must not stall behind OpenCode's writes), and is closed at the
// end of each step so OpenCode can checkpoint and clean up when it exits.

import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { openQueryOnly } from '../../sqlite/open.ts';

export type Db = Database.Database;
export type AccessMode = 'direct' | 'live' | 'snapshot';

export const PROVIDER_BUSY_TIMEOUT_MS = 200;

export interface FileSig {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

export interface DbFiles {
  readonly db: FileSig;
  readonly wal: FileSig | null;
  readonly shm: FileSig | null;
}

/** On the calling thread, as the file poll's stats (src/ingest/observe.ts): the provider looks every 2 s turn. */
function sig(path: string): FileSig | null {
  try {
    const s = statSync(path);
    return s.isFile() ? { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino } : null;
  } catch {
    return null;
  }
}

/** The database's files now, or null when the database itself is gone. */
export function observeFiles(path: string): DbFiles | null {
  const db = sig(path);
  if (db === null) return null;
  return { db, wal: sig(`${path}-wal`), shm: sig(`${path}-shm`) };
}

/** Changes whenever committed content may have changed (the -shm changes with every reader, ours too). */
export function contentKey(files: DbFiles): string {
  const part = (s: FileSig | null): string => (s === null ? '-' : `${s.ino}:${s.size}:${s.mtimeMs}`);
  return `${part(files.db)}|${part(files.wal)}`;
}

const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

export class NotADatabase extends Error {
  readonly code = 'SQLITE_NOTADB';
}

/** Journal kind from the file header (bytes 18/19 are 2 for WAL), read without SQLite. */
export async function journalKind(path: string): Promise<'wal' | 'rollback'> {
  const handle = await open(path, 'r');
  try {
    const header = Buffer.alloc(100);
    const { bytesRead } = await handle.read(header, 0, 100, 0);
    if (bytesRead === 0) throw new NotADatabase(`${path} is empty`);
    if (bytesRead < 100 || !header.subarray(0, 16).equals(MAGIC)) throw new NotADatabase(`${path} is not an SQLite database (bad header)`);
    return header[18] === 2 || header[19] === 2 ? 'wal' : 'rollback';
  } finally {
    await handle.close();
  }
}

export function accessMode(kind: 'wal' | 'rollback', files: DbFiles): AccessMode {
  if (kind === 'rollback') return 'direct';
  return files.wal !== null && files.shm !== null ? 'live' : 'snapshot';
}

/** A read-only, query-only connection. */
export function openReadOnly(path: string): Db {
  return openQueryOnly(path, PROVIDER_BUSY_TIMEOUT_MS);
}
