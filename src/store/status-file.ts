// The running service publishes its status to `<home>/history.status.json`
// (replaced atomically by rename) so that `agent-bridge status` in another
// process can show live phase, backlog and errors. Derived, disposable data.

import { join } from 'node:path';
import type { HistoryStatus } from '../../protocols/service.ts';
import { readJsonFile, writeJsonFile } from '../config/json-file.ts';
import type { HistoryPaths } from '../config/paths.ts';

export function statusFilePath(paths: HistoryPaths): string {
  return join(paths.bridgeHome, 'history.status.json');
}

export function writeStatusFile(paths: HistoryPaths, status: HistoryStatus): void {
  writeJsonFile(statusFilePath(paths), status, { pretty: true });
}

export function readStatusFile(paths: HistoryPaths): HistoryStatus | null {
  return readJsonFile(statusFilePath(paths)) as HistoryStatus | null;
}
