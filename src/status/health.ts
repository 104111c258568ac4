// The health object (protocols/health.ts) from what a running service
// publishes. One exported function, healthStatus(paths): `agent-bridge
// health` prints it and the dashboard's GET /api/status returns it.
//
// Cost, per call: the writer lock and history.status.json (two small file
// reads, a kill(pid, 0) and /proc/<pid>/stat). Only when no service runs does
// it read the migration state from disk: history.db's one history_migration
// row and the progress database's per-table rows (at most 14), never a scan.

import type { CaptureProgress } from '../../protocols/capture.ts';
import type { HealthCapture, HealthError, HealthMigration, HealthMirrors, HealthService, HealthStatus } from '../../protocols/health.ts';
import { HEALTH_ERRORS_MAX, HEALTH_STALE_AFTER_MS, HEALTH_VERSION } from '../../protocols/health.ts';
import { serializeError } from '../../protocols/errors.ts';
import type { MigrationProgress } from '../../protocols/migration.ts';
import type { HistoryStatus } from '../../protocols/service.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { ingestEnvDisabled } from '../config/ingest-env.ts';
import { emptyProgress, readMigrationProgress } from '../migration/status.ts';
import { readStatusFile } from '../store/status-file.ts';
import { inspectLock, type LockOwner } from '../store/writer-lock.ts';

export interface HealthOptions {
  /** The environment whose AGENT_BRIDGE_HISTORY_INGEST switch applies (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  readonly now?: number;
}

export const RETRY_COMMAND = 'agent-bridge reindex --retry';

const UNKNOWN_PROGRESS: CaptureProgress = {
  since: null,
  capturedBytes: 0,
  foundBytes: 0,
  percent: null,
  bytesPerSecond: 0,
  etaSeconds: null,
  discovering: false,
  last: null,
};

/**
 * The cached status object for the bridge home of `paths`: service state,
 * capture backlog (rate, percentage, ETA), migration, mirrors, batch latency
 * and last errors. Synchronous and cheap (see above); never throws for a
 * missing or unreadable file, which shows as a stopped service instead.
 */
export function healthStatus(paths: HistoryPaths, options: HealthOptions = {}): HealthStatus {
  const now = options.now ?? Date.now();
  const lock = safely(() => inspectLock(paths.writerLock), { state: 'absent' } as const);
  const owner = lock.state === 'live' ? lock.owner : null;
  const published = owner === null ? null : readStatusFile(paths);
  // A status file left by a process that is no longer the writer is history, not live state.
  const live = published !== null && owner !== null && published.writer.pid === owner.pid ? published : null;
  const service = serviceOf(owner, live, now, ingestEnvDisabled(options.env ?? process.env));
  const unread: HealthError[] = [];
  const migration = live !== null ? migrationOf(live.migration, true) : diskMigration(paths, unread);
  return {
    version: HEALTH_VERSION,
    home: paths.bridgeHome,
    historyDb: paths.historyDb,
    generatedAt: now,
    service,
    capture: captureOf(live),
    migration,
    mirrors: mirrorsOf(live),
    batches: live === null ? { committed: 0, lastMs: 0, p50Ms: 0, p99Ms: 0 } : { ...live.batches },
    store: live === null ? null : { ...live.counts },
    ...errorsOf(live, unread),
  };
}

function safely<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

function serviceOf(owner: LockOwner | null, live: HistoryStatus | null, now: number, disabled: boolean): HealthService {
  const base = { pid: owner?.pid ?? null, mode: live?.mode ?? null, pace: live?.pace ?? null, since: owner?.since ?? null };
  const publishedAt = live?.updatedAt ?? null;
  const ageMs = publishedAt === null ? null : Math.max(0, now - publishedAt);
  if (owner === null) return { state: disabled ? 'disabled' : 'stopped', ...base, publishedAt: null, ageMs: null };
  if (ageMs === null) return { state: now - owner.since < HEALTH_STALE_AFTER_MS ? 'starting' : 'stale', ...base, publishedAt, ageMs };
  return { state: ageMs > HEALTH_STALE_AFTER_MS ? 'stale' : 'running', ...base, publishedAt, ageMs };
}

function captureOf(live: HistoryStatus | null): HealthCapture {
  if (live === null) return { phase: 'stopped', pausedBy: [], backlog: { sources: 0, bytes: 0 }, ...UNKNOWN_PROGRESS };
  // A status file from a build before capture progress was published has no `capture`.
  const progress = (live as Partial<HistoryStatus>).capture ?? UNKNOWN_PROGRESS;
  return { phase: live.phase, pausedBy: live.pausedBy, backlog: { ...live.backlog }, ...progress };
}

function mirrorsOf(live: HistoryStatus | null): HealthMirrors {
  const mirror = live?.mirror;
  // A status file from a build before the mirror actor has only a phase.
  const projects = mirror?.projects ?? [];
  return {
    phase: mirror?.phase ?? 'not-started',
    detail: mirror?.detail ?? null,
    projects: projects.length,
    synced: projects.filter((p) => p.state === 'synced').length,
    held: projects.filter((p) => p.state === 'deferred' || p.state === 'refused').length,
    recordsBehind: projects.reduce((sum, p) => sum + (p.behind ?? 0), 0),
    lastError: mirror?.lastError ?? null,
  };
}

function migrationOf(p: MigrationProgress, live: boolean): HealthMigration {
  const failed = p.phase === 'failed';
  return {
    phase: p.phase,
    pass: p.pass,
    percent: p.percent,
    rowsDone: p.rowsDone,
    rowsTotal: p.rowsTotal,
    ioBytesPerSecond: p.ioBytesPerSecond,
    ioLimitBytesPerSecond: p.ioLimitBytesPerSecond,
    etaSeconds: p.etaSeconds,
    pausedBy: p.pausedBy,
    snapshot: p.snapshot,
    failure: failed ? p.error : null,
    retry: failed ? RETRY_COMMAND : null,
    live,
  };
}

/** The migration as history.db and the progress database show it; a file that cannot be read adds an error. */
function diskMigration(paths: HistoryPaths, errors: HealthError[]): HealthMigration {
  try {
    const progress = readMigrationProgress(paths);
    if (progress !== null) return migrationOf(progress, false);
    return { ...migrationOf(emptyProgress('starting'), false), phase: 'none' };
  } catch (error) {
    const shape = serializeError(error);
    errors.push({ origin: 'migration', code: shape.code, message: `cannot read the migration state: ${shape.message}`, path: shape.path ?? paths.historyDb });
    return migrationOf(emptyProgress('starting'), false);
  }
}

function errorsOf(live: HistoryStatus | null, first: readonly HealthError[]): { errors: HealthError[]; errorCount: number } {
  if (live === null) return { errors: [...first], errorCount: first.length };
  const all: HealthError[] = [...first];
  const seen = new Set<string>();
  const add = (error: HealthError): void => {
    const key = `${error.code}\0${error.message}\0${error.path ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    all.push(error);
  };
  if (live.lastError !== null) add({ origin: 'service', code: live.lastError.code, message: live.lastError.message, path: live.lastError.path ?? null });
  for (const error of [live.migration.error, live.migration.tail.conflict]) {
    if (error !== null) add({ origin: 'migration', code: error.code, message: error.message, path: error.path ?? null });
  }
  // A status file from a build before settings validation has no `config`.
  for (const p of (live as Partial<HistoryStatus>).config?.problems ?? []) {
    add({ origin: 'config', code: p.severity === 'error' ? 'CONFIG_INVALID' : 'CONFIG_WARNING', message: p.field === '' ? p.reason : `${p.field}: ${p.reason}`, path: p.file });
  }
  for (const p of live.problems) add({ origin: p.code === 'CONFIG_INVALID' ? 'config' : 'source', code: p.code, message: p.message, path: p.path });
  if (live.watch.problem !== null) add({ origin: 'watch', code: 'WATCH', message: live.watch.problem, path: null });
  return { errors: all.slice(0, HEALTH_ERRORS_MAX), errorCount: all.length };
}
