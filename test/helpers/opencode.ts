// OpenCode test helpers: the fixture database's rows (read from a private
// copy, so the test never touches the fixture's own directory), snapshots of
// a directory's files, and the manifest's OpenCode part.

import Database from 'better-sqlite3';
import { copyFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sha256, tempDir } from './home.ts';

export const OPENCODE_DIR = join('.local', 'share', 'opencode');

export interface OpencodeManifest {
  readonly sessions: Array<{ id: string; parent_id: string | null; title: string; directory: string; depth: number }>;
}

export interface KeywordRows {
  readonly agent: string;
  readonly opencodeDb?: { base: Array<{ table: string; id: string; session_id?: string }>; afterRevision1: Array<{ table: string; id: string; session_id?: string }> };
}

/** Rows of a database, read from a copy of it (reading the original would create -wal/-shm beside it). */
export function readRows<T>(dbPath: string, sql: string, ...params: unknown[]): T[] {
  const copy = join(tempDir('abh-ocdb-'), 'copy.db');
  copyFileSync(dbPath, copy);
  const db = new Database(copy);
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** Every file below `dir` with its size and sha256 (relative path → "size sha256"). */
export function fileDigest(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else out[relative(dir, full)] = `${statSync(full).size} ${sha256(readFileSync(full))}`;
    }
  };
  walk(dir);
  return out;
}
