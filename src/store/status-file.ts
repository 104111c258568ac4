// The running service publishes its status to `<home>/history.status.json`
// (replaced atomically by rename) so that `agent-bridge status` in another
// process can show live phase, backlog and errors. Derived, disposable data.

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HistoryStatus } from '../../protocols/service.ts';
import type { HistoryPaths } from '../config/paths.ts';

export function statusFilePath(paths: HistoryPaths): string {
  return join(paths.bridgeHome, 'history.status.json');
}

export function writeStatusFile(paths: HistoryPaths, status: HistoryStatus): void {
  const target = statusFilePath(paths);
  const temp = `${target}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(status, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, target);
}

export function readStatusFile(paths: HistoryPaths): HistoryStatus | null {
  try {
    return JSON.parse(readFileSync(statusFilePath(paths), 'utf8')) as HistoryStatus;
  } catch {
    return null;
  }
}
