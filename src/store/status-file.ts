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
  const json = `${JSON.stringify(status, null, 2)}\n`;
  const size = Math.ceil((Buffer.byteLength(json) + RESERVE / 2) / RESERVE) * RESERVE;
  const text = json.padEnd(size - (Buffer.byteLength(json) - json.length), ' ');
  try {
    writeTextFile(statusFilePath(paths), text);
  } catch (error) {
    // A full disk (history.db's too, usually): the status must still say why capture waits.
    if (!isDiskFull(error) || !overwriteInPlace(statusFilePath(paths), json)) throw error;
  }
}

export function readStatusFile(paths: HistoryPaths): HistoryStatus | null {
  return readJsonFile(statusFilePath(paths)) as HistoryStatus | null;
}
