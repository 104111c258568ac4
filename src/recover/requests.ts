// `agent-bridge recover` with a service running: the command cannot take the
// writer lock, so it asks the service, through `<home>/history.recover.request`
// ({requestedAt, pid, force}); the service stops capture at a safe point,
// recovers, writes the outcome to `<home>/history.recover.json` and captures
// again. A request is pending while no outcome answers its time, so neither
// file is ever removed.

import { join } from 'node:path';
import type { RecoverOutcome } from '../../protocols/recovery.ts';
import { readJsonFile, writeJsonFile } from '../config/json-file.ts';
import type { HistoryPaths } from '../config/paths.ts';

export interface RecoverRequest {
  readonly requestedAt: number;
  readonly pid: number;
  /** Rebuild the store even if SQLite finds nothing wrong with it. */
  readonly force: boolean;
}

export const recoverRequestPath = (paths: HistoryPaths): string => join(paths.bridgeHome, 'history.recover.request');
export const recoverOutcomePath = (paths: HistoryPaths): string => join(paths.bridgeHome, 'history.recover.json');

export function writeRecoverRequest(paths: HistoryPaths, request: RecoverRequest): void {
  writeJsonFile(recoverRequestPath(paths), request);
}

export function writeRecoverOutcome(paths: HistoryPaths, outcome: RecoverOutcome): void {
  writeJsonFile(recoverOutcomePath(paths), outcome, { pretty: true });
}

export function readRecoverOutcome(paths: HistoryPaths): RecoverOutcome | null {
  const value = readJsonFile(recoverOutcomePath(paths)) as RecoverOutcome | null;
  return value !== null && typeof value.requestedAt === 'number' ? value : null;
}

/** The request no outcome has answered yet, if any. */
export function pendingRecover(paths: HistoryPaths): RecoverRequest | null {
  const request = readJsonFile(recoverRequestPath(paths)) as RecoverRequest | null;
  if (request === null || typeof request.requestedAt !== 'number') return null;
  const answered = readRecoverOutcome(paths);
  return answered !== null && answered.requestedAt >= request.requestedAt ? null : { requestedAt: request.requestedAt, pid: request.pid, force: request.force === true };
}
