// history.db itself: schema version, `PRAGMA quick_check`, the FTS5 index, and
// the size of its WAL. Read-only and query-only: doctor never writes the store.
// quick_check reads the whole file, so it takes a while on a large store.

import { existsSync, statSync } from 'node:fs';
import type { DoctorCheck } from '../../protocols/doctor.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { formatBytes } from '../cli/output.ts';
import { openQueryOnly, type Db } from '../sqlite/open.ts';
import { hasTable, READER_BUSY_TIMEOUT_MS } from '../store/open.ts';
import { SCHEMA_VERSION } from '../store/schema.ts';
import { errnoOf, fail, messageOf, ok, warn } from './check.ts';

/** Above this the WAL is not being checkpointed: a reader holds an old snapshot, or the writer cannot checkpoint. */
export const WAL_WARN_BYTES = 256 * 1024 * 1024;

// The index is derived: rebuilt from the documents, nothing retained is touched (src/doctor/rebuild-fts.ts).
const FTS_REBUILD_FIX = 'stop the service, then run `agent-bridge doctor --rebuild-fts`';

const BACKUP_FIX = 'run `agent-bridge recover`: it salvages every readable record into a new store and keeps the damaged file beside it';

function isBusy(error: unknown): boolean {
  return /^SQLITE_(BUSY|LOCKED)/.test(errnoOf(error));
}

export function checkStore(paths: HistoryPaths): DoctorCheck[] {
  const title = 'history.db';
  if (!existsSync(paths.historyDb)) return [ok('schema', title, 'not created yet (the service creates it)')];
  let db: Db;
  try {
    db = openQueryOnly(paths.historyDb, READER_BUSY_TIMEOUT_MS);
  } catch (error) {
    return [fail('schema', title, `cannot be opened: ${messageOf(error)}`, BACKUP_FIX)];
  }
  try {
    const schema = checkSchema(db, paths);
    // Integrity and index checks need a store of this build's schema.
    if (schema.level !== 'ok') return [schema];
    return [schema, checkIntegrity(db), checkFtsIndex(db)];
  } finally {
    db.close();
  }
}

function checkSchema(db: Db, paths: HistoryPaths): DoctorCheck {
  const title = 'schema version';
  let version: number;
  try {
    version = db.pragma('user_version', { simple: true }) as number;
  } catch (error) {
    if (isBusy(error)) return warn('schema', title, `history.db is busy (${errnoOf(error)})`, 'run doctor again in a moment');
    return fail('schema', title, `history.db cannot be read: ${messageOf(error)}`, BACKUP_FIX);
  }
  if (version === SCHEMA_VERSION) return ok('schema', title, `${version} (this build's)`);
  if (version > SCHEMA_VERSION) {
    return fail('schema', title, `${version}: written by a newer agent-bridge (this build understands ${SCHEMA_VERSION}); it is left untouched`, 'upgrade agent-bridge history to the release that wrote it');
  }
  return warn('schema', title, `empty: ${paths.historyDb} exists but holds no schema yet`, 'start the service (`agent-bridge serve`): the writer creates the schema');
}

function checkIntegrity(db: Db): DoctorCheck {
  const title = 'PRAGMA quick_check';
  try {
    const rows = db.pragma('quick_check') as Array<{ quick_check: string }>;
    const problems = rows.map((r) => r.quick_check).filter((text) => text !== 'ok');
    if (problems.length === 0) return ok('quick-check', title, 'ok');
    // Damage confined to the full-text index is derived data: rebuilt from the documents, nothing retained is touched.
    const ftsOnly = problems.every((p) => p.startsWith('fts5:'));
    return fail('quick-check', title, `${problems.length} problem${problems.length === 1 ? '' : 's'}: ${problems[0] ?? ''}`, ftsOnly ? FTS_REBUILD_FIX : BACKUP_FIX);
  } catch (error) {
    if (isBusy(error)) return warn('quick-check', title, `history.db is busy (${errnoOf(error)})`, 'run doctor again in a moment');
    return fail('quick-check', title, `history.db is damaged: ${messageOf(error)}`, BACKUP_FIX);
  }
}

/** The index exists and answers a query (a corrupt index, or a SQLite without FTS5, fails here). */
function checkFtsIndex(db: Db): DoctorCheck {
  const title = 'FTS5 index';
  if (!hasTable(db, 'history_fts')) {
    return warn(
      'fts-index',
      title,
      'history.db has no FTS5 index (it was created with AGENT_BRIDGE_HISTORY_FTS=off or by a SQLite without FTS5): search uses literal matching, slower on large stores',
      'searches still work; a store gets its FTS5 index when it is created, so capture into a new bridge home (without AGENT_BRIDGE_HISTORY_FTS=off) for the fast search',
    );
  }
  try {
    db.prepare("SELECT rowid FROM history_fts WHERE history_fts MATCH 'doctorprobe' LIMIT 1").all();
    return ok('fts-index', title, 'present and readable');
  } catch (error) {
    const message = messageOf(error);
    if (/no such module/i.test(message)) {
      return fail('fts-index', title, `history.db has an FTS5 index that this SQLite cannot read (${message})`, 'reinstall the pinned better-sqlite3 (`npm ci`): its bundled SQLite has FTS5');
    }
    if (isBusy(error)) return warn('fts-index', title, `history.db is busy (${errnoOf(error)})`, 'run doctor again in a moment');
    return fail(
      'fts-index',
      title,
      `the FTS5 index is damaged: ${message}`,
      FTS_REBUILD_FIX,
    );
  }
}

export function checkWal(paths: HistoryPaths): DoctorCheck[] {
  const title = 'history.db WAL';
  let size: number;
  try {
    size = statSync(`${paths.historyDb}-wal`).size;
  } catch {
    return [ok('wal', title, 'none (no connection has the store open)')];
  }
  if (size < WAL_WARN_BYTES) return [ok('wal', title, formatBytes(size))];
  return [
    warn(
      'wal',
      title,
      `${formatBytes(size)}: SQLite has not been able to checkpoint it (a reader holding an old snapshot keeps it growing)`,
      'close long-lived readers (idle `agent-bridge mcp` servers, dashboards); restarting the service folds the WAL in and removes it',
    ),
  ];
}
