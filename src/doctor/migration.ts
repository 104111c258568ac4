// The legacy migration's state (a latched failure and how to retry it) and
// the disk space it still needs. The specification warns that the split
// "needs space for the old database, the retained backup and the new history
// copy": bridge.db stays as it is, the snapshot of its history tables is kept
// for good, and history.db receives the copy.

import { statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DoctorCheck } from '../../protocols/doctor.ts';
import type { HealthMigration } from '../../protocols/health.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { formatBytes } from '../cli/output.ts';
import { formatDuration, RETRY_HINT } from '../cli/migration-text.ts';
import type { DoctorContext } from './check.ts';
import { fail, ok, warn } from './check.ts';

/** Below this much free space SQLite writes (capture, migration) start failing with SQLITE_FULL. */
export const DISK_FAIL_BYTES = 64 * 1024 * 1024;
/** Room a capturing store should keep (history.db grows by about 2.3 bytes per source byte). */
export const DISK_WARN_BYTES = 1024 * 1024 * 1024;
/** The copy in history.db also rebuilds the full-text index, so it needs more than the snapshot: keep this margin. */
const COPY_MARGIN = 1.5;

export function checkMigration(ctx: DoctorContext): DoctorCheck[] {
  const m = ctx.health.migration;
  const title = 'legacy migration';
  const where = m.live ? '' : ' (resumes from its checkpoints when the service runs)';
  switch (m.phase) {
    case 'none':
      return [ok('migration', title, 'nothing to migrate (no legacy history in bridge.db)')];
    case 'verified':
      return [ok('migration', title, 'verified: history.db holds the legacy history')];
    case 'failed':
      return [fail('migration', title, `failed and latched: ${m.failure?.message ?? 'unknown error'}`, RETRY_HINT)];
    default: {
      if (m.phase === 'starting' && m.pass === null) {
        return [ok('migration', title, `not started yet: the service moves bridge.db's legacy history into history.db before it captures anything new${where}`)];
      }
      const eta = m.etaSeconds === null ? '' : `, ETA ${formatDuration(m.etaSeconds)}`;
      const paused = m.pausedBy === null ? '' : ` (paused: ${m.pausedBy})`;
      return [ok('migration', title, `${m.pass ?? m.phase} ${m.percent.toFixed(1)}%${paused}, ${m.rowsDone}/${m.rowsTotal} rows${eta}${where}`)];
    }
  }
}

function sizeOf(...files: string[]): number {
  let total = 0;
  for (const file of files) {
    try {
      total += statSync(file).size;
    } catch {
      // absent: nothing there yet
    }
  }
  return total;
}

/** Free bytes for an unprivileged writer on the filesystem holding `path` (or its nearest existing parent). */
export function freeBytes(path: string): number {
  for (let dir = path; ; dir = dirname(dir)) {
    try {
      const fs = statfsSync(dir);
      return fs.bavail * fs.bsize;
    } catch (error) {
      if (dirname(dir) === dir) throw error;
    }
  }
}

export interface DiskNeed {
  /** Bytes the migration still has to write, at most (exact: false) or as measured (exact: true). */
  readonly bytes: number;
  readonly exact: boolean;
  readonly explain: string;
}

/** What the migration still writes: the rest of the snapshot, then the copy into history.db. */
export function migrationNeed(paths: HistoryPaths, m: HealthMigration): DiskNeed | null {
  if (m.phase === 'none' || m.phase === 'verified') return null;
  const bridge = sizeOf(paths.bridgeDb, `${paths.bridgeDb}-wal`);
  const written = m.snapshot === null ? 0 : sizeOf(m.snapshot);
  // Once the snapshot pass is over, the snapshot's size is known; before, bridge.db's size bounds it.
  const exact = m.pass !== null && m.pass !== 'snapshot' && m.snapshot !== null;
  const snapshot = exact ? written : Math.max(bridge, written);
  const copied = sizeOf(paths.historyDb, `${paths.historyDb}-wal`);
  const bytes = Math.max(0, snapshot - written) + Math.max(0, snapshot - copied);
  const bound = exact ? `the snapshot is ${formatBytes(snapshot)}` : `the snapshot of bridge.db's history tables is at most bridge.db's ${formatBytes(bridge)} (${formatBytes(written)} written)`;
  return { bytes, exact, explain: `${bound}, and history.db receives a copy as large (${formatBytes(copied)} so far)` };
}

export type DiskLevel = 'ok' | 'warn' | 'fail';

/**
 * The verdict on `available` free bytes: fail below the floor SQLite needs, or
 * below what the migration still writes when that is known exactly; warn
 * within the copy's margin, on the upper bound, or with little room to grow.
 */
export function diskVerdict(available: number, need: DiskNeed | null): DiskLevel {
  if (available < DISK_FAIL_BYTES) return 'fail';
  if (need === null) return available < DISK_WARN_BYTES ? 'warn' : 'ok';
  if (need.exact && available < need.bytes) return 'fail';
  return available < need.bytes * (need.exact ? COPY_MARGIN : 1) ? 'warn' : 'ok';
}

export function checkDisk(ctx: DoctorContext, free: (path: string) => number = freeBytes): DoctorCheck[] {
  const title = `free disk space (${ctx.paths.bridgeHome})`;
  const available = free(ctx.paths.bridgeHome);
  const need = migrationNeed(ctx.paths, ctx.health.migration);
  const level = diskVerdict(available, need);
  let detail = `${formatBytes(available)} free`;
  if (need !== null) detail += `; the migration needs ${need.exact ? 'about' : 'up to'} ${formatBytes(need.bytes)} more: ${need.explain}`;
  else if (level !== 'ok') detail += available < DISK_FAIL_BYTES ? ': SQLite writes fail when the disk is full' : ': little room for history.db to grow';
  if (level === 'ok') return [ok('disk', title, detail)];
  let fix = 'free space on that filesystem, or move the bridge home to a larger one (AGENT_BRIDGE_HOME)';
  if (need !== null) fix += '; the migration waits and retries when the disk is full, keeping both databases and the snapshot';
  return [level === 'fail' ? fail('disk', title, detail, fix) : warn('disk', title, detail, fix)];
}
