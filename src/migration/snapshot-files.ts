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
import { openProgressFile, ProgressStore, setJournalMode } from './progress-db.ts';

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
  /** The snapshot (WAL, synchronous=FULL). */
  readonly db: Db;
  /** The progress database, on its own connection (WAL, synchronous=NORMAL). */
  readonly progressDb: Db;
  readonly progress: ProgressStore;
  /**
   * One unit: `work` writes the snapshot and the progress database; the
   * snapshot commits first (durably), then the progress database. A crash
   * between the two leaves snapshot rows (or a retained table) that no
   * checkpoint names yet; the next snapshot session finds and settles them
   * (revalidate.ts) before it writes again.
   */
  unit<T>(work: () => T): T;
  /** The snapshot pass is over: checkpoint the snapshot into a single rollback-journal file, as the later passes read it. */
  settle(): void;
  close(): void;
}

/**
 * Open the snapshot for writing (WAL with synchronous=FULL: each unit's rows
 * are on disk before its checkpoint is written) and the progress database
 * (WAL, synchronous=NORMAL, as the later passes use it). A two-file commit
 * in rollback-journal mode would commit both atomically, but costs several
 * fsyncs of two files and a directory per unit, several times the unit's
 * own work on a busy disk; the order of two WAL commits keeps the same
 * guarantees with one fsync.
 */
export function openSnapshotWriter(snapshot: string): SnapshotWriter {
  if (!existsSync(snapshot)) throw new HistoryError('VERIFY_FAILED', `the migration snapshot ${snapshot} is missing; it is never recreated over a started migration`, { path: snapshot });
  const db = new Database(snapshot, { fileMustExist: true });
  let progressDb: Db | null = null;
  try {
    db.pragma('busy_timeout = 3000');
    assertUtf8(db, snapshot);
    setJournalMode(db, 'main', 'wal');
    db.pragma('synchronous = FULL');
    db.pragma('cache_size = -32768');
    const progressFile = openProgressFile(progressPathOf(snapshot), { journal: 'wal' });
    progressDb = progressFile;
    const progress = new ProgressStore(progressFile);
    return {
      db,
      progressDb: progressFile,
      progress,
      unit: <T>(work: () => T): T => progressFile.transaction(() => db.transaction(work).immediate()).immediate(),
      settle: () => {
        setJournalMode(db, 'main', 'delete');
      },
      close: () => {
        if (progressFile.open) progressFile.close();
        if (db.open) db.close();
      },
    };
  } catch (error) {
    progressDb?.close();
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
