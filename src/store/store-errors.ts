// Store errors a user must act on, named by file and with what to do.
// A damaged database file (bad pages, a truncated file, something else put in
// its place) is reported by SQLite as SQLITE_CORRUPT or SQLITE_NOTADB, from
// whichever statement first reads a damaged page: history.db is salvaged by
// `agent-bridge recover`; another program's database (bridge.db, opencode.db)
// is only ever read here, never repaired. A full disk (SQLITE_FULL, ENOSPC)
// rolls the transaction back: capture waits and retries the batch, and
// resumes by itself once there is space again.

import { basename } from 'node:path';
import { HistoryError } from '../../protocols/errors.ts';

export const RECOVER_HINT = 'run `agent-bridge recover` to salvage every readable record into a new history.db (the damaged file is kept beside it, renamed)';

export function isCorruption(error: unknown): boolean {
  if (error instanceof HistoryError) return error.code === 'STORE_CORRUPT';
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}

/** The error for a damaged database at `path` (already such an error: unchanged). */
export function damagedStore(path: string, error: unknown): HistoryError {
  if (error instanceof HistoryError && error.code === 'STORE_CORRUPT' && error.path !== undefined) return error;
  const cause = error instanceof Error ? error.message : String(error);
  const what = basename(path) === 'history.db' ? RECOVER_HINT : 'agent-bridge history only reads it and cannot repair it';
  return new HistoryError('STORE_CORRUPT', `${path} is damaged (${cause}): ${what}`, { path, cause: error, step: 'read store' });
}

export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'STORE_FULL' || code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT';
}

/** The error for a full disk under `path`; `waiting` is what waits for space (capture, the migration). */
export function diskFull(path: string, error: unknown, waiting = 'capture'): HistoryError {
  if (error instanceof HistoryError && error.code === 'STORE_FULL' && error.path !== undefined) return error;
  const cause = error instanceof Error ? error.message : String(error);
  return new HistoryError(
    'STORE_FULL',
    `no space left for ${path} (${cause}): ${waiting} waits and retries by itself; free space on that disk (nothing written so far is lost)`,
    { path, cause: error, step: 'write store' },
  );
}

/** Run `work` on the database at `path`; a damaged file becomes damagedStore(path), a full disk diskFull(path). */
export function onStore<T>(path: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (isCorruption(error)) throw damagedStore(path, error);
    if (isDiskFull(error)) throw diskFull(path, error);
    throw error;
  }
}
