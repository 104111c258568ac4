// The running service publishes its status to `<home>/history.status.json`
// (replaced atomically by rename) so that `agent-bridge status` in another
// process can show live phase, backlog and errors. Derived, disposable data.
// It is padded with spaces to a reserve, which a later status overwrites in
// place when the disk is full (JSON allows trailing whitespace).

import { join } from 'node:path';
import type { HistoryStatus } from '../../protocols/service.ts';
import { overwriteInPlace, readJsonFile, writeTextFile } from '../config/json-file.ts';
import { isDiskFull } from './store-errors.ts';
import type { HistoryPaths } from '../config/paths.ts';

export function statusFilePath(paths: HistoryPaths): string {
  return join(paths.bridgeHome, 'history.status.json');
}

/** The file is padded to whole blocks of this size, so a later status fits in place when the disk is full. */
const RESERVE = 16 * 1024;

export function writeStatusFile(paths: HistoryPaths, status: HistoryStatus): void {
  const json = `${JSON.stringify(status)}\n`; // compact: it is rewritten every few seconds, and holds one entry per project
  const size = Math.ceil((Buffer.byteLength(json) + RESERVE / 2) / RESERVE) * RESERVE;
  const text = json.padEnd(size - (Buffer.byteLength(json) - json.length), ' ');
  try {
    writeTextFile(statusFilePath(paths), text);
  } catch (error) {
    // A full disk (history.db's too, usually): the status must still say why capture waits.
    if (!isDiskFull(error) || !overwriteInPlace(statusFilePath(paths), json)) throw error;
  }
}

/**
 * A status that differs from the last one written only in its time is
 * written again after this long: often enough that health (which calls a
 * status older than HEALTH_STALE_AFTER_MS, 10 s, stale) sees a live writer,
 * seldom enough that an idle service does not replace the file every second.
 */
export const STATUS_HEARTBEAT_MS = 4000;

/** Writes a status when it changed (the times it was taken aside), or as a heartbeat. */
export class StatusPublisher {
  private last: string | null = null;
  private writtenAt = 0;

  constructor(
    private readonly paths: HistoryPaths,
    private readonly heartbeatMs = STATUS_HEARTBEAT_MS,
  ) {}

  /** Returns whether it wrote; a failed write is tried again at the next publish. */
  publish(status: HistoryStatus): boolean {
    // The times of taking (the status's and its migration progress's) are no change.
    const content = JSON.stringify({ ...status, updatedAt: 0, migration: { ...status.migration, updatedAt: 0 } });
    if (content === this.last && status.updatedAt - this.writtenAt < this.heartbeatMs) return false;
    writeStatusFile(this.paths, status);
    this.last = content;
    this.writtenAt = status.updatedAt;
    return true;
  }
}

export function readStatusFile(paths: HistoryPaths): HistoryStatus | null {
  return readJsonFile(statusFilePath(paths)) as HistoryStatus | null;
}
