// The snapshot file `<home>/.migration-snapshots/bridge-history-v1-<uuid>.db`
// and its companion `<snapshot>.progress.db`. Both are created once (mode
// 0600 in a 0700 folder: they hold the user's history), kept for good (the
// snapshot is never rotated) and reopened on every resume.

import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { basename, join } from 'node:path';
import { HistoryError } from '../../protocols/errors.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { type Db, openQueryOnly } from '../sqlite/open.ts';
import { assertUtf8 } from './legacy-tables.ts';
import { ensureProgressSchema, ProgressStore, setJournalMode } from './progress-db.ts';

export const SNAPSHOT_DIR = '.migration-snapshots';
/** Every reader of migration files: short waits, small cache, no mmap. */
const READ_BUSY_MS = 100;

export function snapshotDir(paths: HistoryPaths): string {
  return join(paths.bridgeHome, SNAPSHOT_DIR);
}

export function newSnapshotPath(paths: HistoryPaths): string {
  return join(snapshotDir(paths), `bridge-history-v1-${randomUUID()}.db`);
}

export function progressPathOf(snapshot: string): string {
  return `${snapshot}.progress.db`;
}

/** Create an empty file with owner-only permissions unless it exists (SQLite keeps the mode for its journals). */
function touchPrivate(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

export function ensureSnapshotFiles(paths: HistoryPaths, snapshot: string): void {
  mkdirSync(snapshotDir(paths), { recursive: true, mode: 0o700 });
  touchPrivate(snapshot);
  touchPrivate(progressPathOf(snapshot));
}

/**
 * The recorded snapshot, or the file of the same name in this home's
 * snapshot folder when the bridge home was moved since; null when neither
 * exists with its progress database.
 */
export function locateSnapshot(paths: HistoryPaths, recorded: string | null): string | null {
  if (recorded === null) return null;
  for (const candidate of [recorded, join(snapshotDir(paths), basename(recorded))]) {
    if (existsSync(candidate) && existsSync(progressPathOf(candidate))) return candidate;
  }
  return null;
}

export interface SnapshotWriter {
  readonly db: Db;
  /** The progress database, ATTACHed as `progress` on the same connection. */
  readonly progress: ProgressStore;
  close(): void;
}

/**
 * Open the snapshot for writing with the progress database attached, both
 * with a rollback journal and synchronous=FULL, so that one transaction
 * commits a chunk and its checkpoint atomically and durably.
 */
export function openSnapshotWriter(snapshot: string): SnapshotWriter {
  if (!existsSync(snapshot)) throw new HistoryError('VERIFY_FAILED', `the migration snapshot ${snapshot} is missing; it is never recreated over a started migration`, { path: snapshot });
  const db = new Database(snapshot, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 3000');
    db.pragma('journal_mode = DELETE');
    db.pragma('synchronous = FULL');
    assertUtf8(db, snapshot);
    db.prepare('ATTACH DATABASE ? AS progress').run(progressPathOf(snapshot));
    setJournalMode(db, 'progress', 'delete');
    db.pragma('progress.synchronous = FULL');
    ensureProgressSchema(db, 'progress');
    return { db, progress: new ProgressStore(db, 'progress'), close: () => db.open && db.close() };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Open a migration file read-only (snapshot or progress), or null when it does not exist. */
export function openMigrationReader(path: string): Db | null {
  if (!existsSync(path)) return null;
  const db = openQueryOnly(path, READ_BUSY_MS);
  try {
    db.pragma('cache_size = -2048');
    db.pragma('mmap_size = 0');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
