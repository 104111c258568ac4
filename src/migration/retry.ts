// Clearing a latched migration failure (`agent-bridge reindex --retry`).
//
// A failure is latched in history.db (status 'failed', with the error and the
// status to resume); no restart clears it. An explicit retry puts the row back
// to that status, and the migration resumes from its checkpoints.
//
// Only the writer may change history.db. When no service holds the writer
// lock, the command takes it and retries in its own process. When a service
// runs, the command leaves a request file `<home>/history.migration-retry.json`
// holding a fresh nonce; the service's migrator sees it and retries. A
// failure records the nonce of the request file present when it latched, so
// an old request never clears a newer failure (and the file never needs to be
// removed).

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HistoryErrorShape } from '../../protocols/errors.ts';
import { writeJsonFile } from '../config/json-file.ts';
import type { HistoryPaths } from '../config/paths.ts';
import type { Db } from '../store/open.ts';
import { failureOf, readMigrationRow, writeMigrationRow } from './migration-row.ts';

export function retryRequestPath(paths: HistoryPaths): string {
  return join(paths.bridgeHome, 'history.migration-retry.json');
}

/** The nonce of the current retry request, or null when there is none. */
export function readRetryRequest(paths: HistoryPaths): string | null {
  try {
    const value = JSON.parse(readFileSync(retryRequestPath(paths), 'utf8')) as { nonce?: unknown };
    return typeof value.nonce === 'string' ? value.nonce : null;
  } catch {
    return null;
  }
}

/** Ask a running service to retry (replaces any earlier request atomically). Returns the nonce. */
export function writeRetryRequest(paths: HistoryPaths): string {
  const nonce = randomUUID();
  writeJsonFile(retryRequestPath(paths), { nonce, requestedAt: Date.now(), pid: process.pid });
  return nonce;
}

/** A retry request newer than the latched failure, if there is one. */
export function pendingRetry(paths: HistoryPaths, history: Db): string | null {
  const failure = failureOf(readMigrationRow(history));
  if (failure === null) return null;
  const nonce = readRetryRequest(paths);
  return nonce !== null && nonce !== failure.staleRetry ? nonce : null;
}

export interface ClearResult {
  /** A latched failure was cleared. */
  readonly cleared: boolean;
  /** The error that had been latched. */
  readonly error: HistoryErrorShape | null;
  /** The row's status now. */
  readonly status: string | null;
}

/** Clear a latched failure (writer only): back to the status it failed in, with its previous manifest. */
export function clearLatchedFailure(history: Db): ClearResult {
  const row = readMigrationRow(history);
  const failure = failureOf(row);
  if (row === null || row.status !== 'failed') return { cleared: false, error: null, status: row?.status ?? null };
  const status = failure?.resumeStatus ?? 'snapshotting';
  writeMigrationRow(history, { status, snapshot: row.snapshot, manifest: failure?.previous ?? null });
  return { cleared: true, error: failure?.error ?? null, status };
}
