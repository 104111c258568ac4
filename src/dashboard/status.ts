// The status object `/api/status` returns. Interim: built here from what the
// project publishes today (the running service's history.status.json, the
// writer lock, counts of the store, the migration's progress), the way
// `agent-bridge status` reads them. The cached health object of issue 13's
// doctor/health part replaces `buildStatus` once it lands; nothing else in
// the dashboard depends on how this object is made.
//
// Runs on a reader thread (it opens SQLite read-only), never on the thread
// that serves HTTP.

import type { MigrationProgress } from '../../protocols/migration.ts';
import type { HistoryStatus } from '../../protocols/service.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { ingestEnvDisabled } from '../config/settings.ts';
import { readMigrationProgress } from '../migration/status.ts';
import type { StoreCounts as Counts } from '../../protocols/history.ts';
import { hasTable, openReader, type Db } from '../store/open.ts';
import { readStatusFile } from '../store/status-file.ts';
import { WriterLock } from '../store/writer-lock.ts';

export interface CaptureProgress {
  readonly phase: string;
  readonly backlogSources: number;
  readonly backlogBytes: number;
  /** Raw bytes retained in the store. */
  readonly capturedBytes: number;
  /** Share of the current backlog captured since it began (null without a backlog). */
  readonly percent: number | null;
  /** Capture rate over the last samples (bytes per second; null until known). */
  readonly rateBytesPerSecond: number | null;
  readonly etaSeconds: number | null;
}

export interface DashboardStatus {
  readonly home: string;
  readonly phase: string;
  readonly writer: { readonly pid: number | null };
  readonly counts: Counts | null;
  readonly capture: CaptureProgress;
  readonly migration: MigrationProgress | null;
  readonly batches: { readonly committed: number; readonly p50Ms: number; readonly p99Ms: number } | null;
  readonly mirror: { readonly phase: string; readonly detail?: string } | null;
  readonly errors: ReadonlyArray<{ readonly code: string; readonly message: string; readonly path?: string }>;
  /** The running service's published status (null when none runs). */
  readonly service: HistoryStatus | null;
  readonly updatedAt: number;
}

const COUNTS_TTL_MS = 5000;

/** Counts from the small per-conversation stats table where there is one (a full scan of raw bytes otherwise). */
function cheapCounts(db: Db): Counts {
  const one = (sql: string): number => (db.prepare(sql).pluck().get() as number | null) ?? 0;
  const stats = hasTable(db, 'history_conversation_stats');
  return {
    sources: one('SELECT count(*) FROM conversation_sources'),
    conversations: one('SELECT count(*) FROM conversations'),
    records: stats ? one('SELECT coalesce(sum(records), 0) FROM history_conversation_stats') : one('SELECT count(*) FROM conversation_records'),
    documents: one('SELECT count(*) FROM history_documents'),
    rawBytes: stats ? one('SELECT coalesce(sum(bytes), 0) FROM history_conversation_stats') : one('SELECT coalesce(sum(length(raw)), 0) FROM conversation_records'),
  };
}

/** Rate and backlog progress from successive samples (kept by the one thread that builds status). */
export class CaptureTracker {
  private last: { at: number; bytes: number } | null = null;
  private rate: number | null = null;
  private backlogStart = 0;

  sample(now: number, capturedBytes: number, backlogBytes: number): Pick<CaptureProgress, 'percent' | 'rateBytesPerSecond' | 'etaSeconds'> {
    if (this.last !== null && now - this.last.at >= 500) {
      const instant = Math.max(0, (capturedBytes - this.last.bytes) / ((now - this.last.at) / 1000));
      this.rate = this.rate === null ? instant : this.rate * 0.6 + instant * 0.4;
      this.last = { at: now, bytes: capturedBytes };
    } else if (this.last === null) {
      this.last = { at: now, bytes: capturedBytes };
    }
    if (backlogBytes <= 0) {
      this.backlogStart = 0;
      return { percent: null, rateBytesPerSecond: this.rate, etaSeconds: null };
    }
    if (backlogBytes > this.backlogStart) this.backlogStart = backlogBytes;
    const percent = Math.round(((this.backlogStart - backlogBytes) / this.backlogStart) * 10000) / 100;
    const etaSeconds = this.rate !== null && this.rate > 0 ? Math.round(backlogBytes / this.rate) : null;
    return { percent, rateBytesPerSecond: this.rate, etaSeconds };
  }
}

export class StatusBuilder {
  private counts: { at: number; value: Counts | null } | null = null;
  private readonly tracker = new CaptureTracker();

  constructor(private readonly paths: HistoryPaths) {}

  private storeCounts(now: number): Counts | null {
    if (this.counts !== null && now - this.counts.at < COUNTS_TTL_MS) return this.counts.value;
    const db = openReader(this.paths.historyDb);
    try {
      this.counts = { at: now, value: db === null ? null : cheapCounts(db) };
    } finally {
      db?.close();
    }
    return this.counts.value;
  }

  /** The one function the dashboard asks for status (see the file comment). */
  build(now = Date.now()): DashboardStatus {
    const owner = WriterLock.liveOwner(this.paths.writerLock);
    const published = readStatusFile(this.paths);
    const service = published !== null && owner !== null && published.writer.pid === owner.pid ? published : null;
    const disabled = ingestEnvDisabled();
    const phase = disabled ? 'disabled' : service !== null ? service.phase : owner !== null ? 'running' : 'stopped';
    const counts = service?.counts ?? this.storeCounts(now);
    const backlogBytes = service?.backlog.bytes ?? 0;
    const capturedBytes = counts?.rawBytes ?? 0;
    const errors = service === null ? [] : [...(service.lastError === null ? [] : [service.lastError]), ...service.problems.slice(0, 20)];
    return {
      home: this.paths.bridgeHome,
      phase,
      writer: { pid: owner?.pid ?? null },
      counts,
      capture: { phase, backlogSources: service?.backlog.sources ?? 0, backlogBytes, capturedBytes, ...this.tracker.sample(now, capturedBytes, backlogBytes) },
      migration: service?.migration ?? readMigrationProgress(this.paths),
      batches: service === null ? null : { committed: service.batches.committed, p50Ms: service.batches.p50Ms, p99Ms: service.batches.p99Ms },
      mirror: service?.mirror ?? null,
      errors: errors.map((e) => ({ code: e.code, message: e.message, ...(e.path === undefined ? {} : { path: e.path }) })),
      service,
      updatedAt: now,
    };
  }
}
