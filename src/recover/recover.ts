// `agent-bridge recover`, the store side: salvage a damaged history.db into a
// new store that then takes its place. The caller holds the writer lock.
//
//   1. inspect    SQLite's quick_check on a read-only connection;
//   2. salvage    every readable row into history.db.recovering-<time>
//                 (salvage.ts), then the metadata and cursors that make it
//                 consistent (metadata.ts), and a reindex begun, so the next
//                 capture rebuilds every derived document and re-reads what
//                 the sources still hold;
//   3. swap       the damaged history.db (and its -wal, -shm) is renamed to
//                 history.db.corrupt-<time>, never deleted or overwritten;
//                 the new store is renamed to history.db.
// The WAL is renamed before the database file: a -wal left beside a new
// history.db would be replayed into it. Nothing here deletes anything; a
// recovery interrupted before the swap leaves its .recovering- file, and the
// damaged store in place, so it can simply be run again.

import Database from 'better-sqlite3';
import { existsSync, renameSync } from 'node:fs';
import { HistoryError, serializeError, toHistoryError } from '../../protocols/errors.ts';
import type { RecoverOutcome, RecoveryReport } from '../../protocols/recovery.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { ftsAvailable, ftsWanted, openWriter } from '../store/open.ts';
import { beginReindex } from '../store/reindex-store.ts';
import { MetadataRebuild } from './metadata.ts';
import { salvage } from './salvage.ts';
import { SqliteFile } from './sqlite-file.ts';

const REPORTED = 200;

export type Inspection = { readonly damaged: false } | { readonly damaged: true; readonly reason: string };

/** Whether SQLite finds history.db damaged (quick_check, or failing to read it at all). */
export function inspectStore(path: string): Inspection {
  let db: Database.Database | null = null;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 1000 });
    if ((db.pragma('user_version', { simple: true }) as number) === 0 && db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table'").get() !== undefined) {
      return { damaged: true, reason: 'it is not a history store: another database is in its place' };
    }
    const rows = db.pragma('quick_check(20)') as Array<{ quick_check: string }>;
    const problems = rows.map((r) => r.quick_check).filter((p) => p !== 'ok');
    return problems.length === 0 ? { damaged: false } : { damaged: true, reason: problems.join('; ') };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_IOERR'))) {
      return { damaged: true, reason: (error as Error).message };
    }
    throw error;
  } finally {
    db?.close();
  }
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

function freeName(base: string, ms: number): string {
  for (let i = 0; ; i++) {
    const name = `${base}-${stamp(ms)}${i === 0 ? '' : `-${i}`}`;
    if (![name, `${name}-wal`, `${name}-shm`].some((p) => existsSync(p))) return name;
  }
}

/** Salvage the damaged history.db of `paths` and put the new store in its place. The caller holds the writer lock. */
export async function recoverStore(paths: HistoryPaths, reason: string, now: () => number = Date.now): Promise<RecoveryReport> {
  const startedAt = now();
  const damaged = paths.historyDb;
  if (!existsSync(damaged)) throw new HistoryError('BAD_INPUT', `nothing to recover: ${damaged} does not exist`, { path: damaged });
  const building = freeName(`${damaged}.recovering`, startedAt);
  const keptAs = freeName(`${damaged}.corrupt`, startedAt);

  const file = SqliteFile.open(damaged);
  let target: Database.Database | null = null;
  let salvaged;
  let metadata;
  try {
    target = openWriter(building, { fts: ftsWanted() && ftsAvailable() });
    salvaged = salvage(file, target);
    metadata = await new MetadataRebuild(target, paths).run(salvaged.captureTimes);
    const db = target;
    db.transaction(() => beginReindex(db, startedAt))();
    db.pragma('wal_checkpoint(FULL)'); // closing then leaves no WAL beside it
  } finally {
    file.close();
    target?.close();
  }

  // The swap: the damaged files aside (WAL first), then the new store in place.
  for (const suffix of ['-wal', '-shm', '']) if (existsSync(`${damaged}${suffix}`)) renameSync(`${damaged}${suffix}`, `${keptAs}${suffix}`);
  for (const suffix of ['-wal', '-shm']) if (existsSync(`${building}${suffix}`)) renameSync(`${building}${suffix}`, `${damaged}${suffix}`);
  renameSync(building, damaged);

  const lost = salvaged.lostRecords;
  const lostSources = new Set<string>([...(lost ?? []).map((r) => r.source), ...metadata.lostGenerations.map((g) => g.source)]);
  return {
    damaged,
    keptAs,
    store: damaged,
    reason,
    startedAt,
    finishedAt: now(),
    salvaged: {
      records: salvaged.records,
      rawBytes: salvaged.rawBytes,
      fromOrphanPages: salvaged.fromOrphanPages,
      conversations: salvaged.conversations,
      sources: salvaged.sources,
      otherRows: salvaged.otherRows,
    },
    rebuilt: { conversations: metadata.conversations, sources: metadata.sources },
    lost: {
      unreadablePages: salvaged.unreadablePages,
      damagedRows: salvaged.damagedRows,
      records: lost === null ? null : lost.length,
      sources: [...lostSources].sort().slice(0, REPORTED),
      generations: metadata.lostGenerations.slice(0, REPORTED),
      tables: salvaged.missingTables,
    },
    recapture: { continued: metadata.continued, newGeneration: metadata.newGeneration, newGenerationSources: metadata.newGenerationSources, fromStart: metadata.fromStart },
  };
}

/**
 * One recovery, start to end: inspect, and salvage when the store is damaged
 * (or `force`). Never throws: a failure is an outcome too (the damaged store
 * then stays where it is, untouched). The caller holds the writer lock.
 */
export async function recoverHome(paths: HistoryPaths, request: { readonly requestedAt: number; readonly force: boolean }): Promise<RecoverOutcome> {
  const done = (outcome: RecoverOutcome['outcome'], report: RecoveryReport | null, error: unknown = null): RecoverOutcome => ({
    requestedAt: request.requestedAt,
    finishedAt: Date.now(),
    outcome,
    report,
    error: error === null ? null : serializeError(toHistoryError(error, 'recover store')),
  });
  try {
    if (!existsSync(paths.historyDb)) return done('not-damaged', null);
    const inspection = inspectStore(paths.historyDb);
    if (!inspection.damaged && !request.force) return done('not-damaged', null);
    return done('recovered', await recoverStore(paths, inspection.damaged ? inspection.reason : 'none found (--force)'));
  } catch (error) {
    return done('failed', null, error);
  }
}
