// The status object `/api/status` returns: the cached health object
// (src/status/health.ts, the same one `agent-bridge health --json` prints,
// built from the running service's published status and the writer lock),
// plus what the store holds. While a service runs its published counts are
// used; without one the counts come from a small read of history.db at most
// every COUNTS_TTL_MS, so polling the page never scans the store.
//
// Runs on a reader thread (it opens SQLite read-only), never on the thread
// that serves HTTP.

import type { HealthStatus } from '../../protocols/health.ts';
import type { StoreCounts as Counts } from '../../protocols/history.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { healthStatus } from '../status/health.ts';
import { storeCounts } from '../store/counts.ts';
import { openReader } from '../store/open.ts';

export interface DashboardStatus extends HealthStatus {
  /** What the store holds (null before anything was captured). */
  readonly counts: Counts | null;
}

const COUNTS_TTL_MS = 5000;

/** Fields that change on every build without anything having happened (left out when deciding whether to push an event). */
export function statusChangeKey(status: DashboardStatus): string {
  return JSON.stringify({ ...status, generatedAt: 0, service: { ...status.service, ageMs: 0 } });
}

export class StatusBuilder {
  private counts: { at: number; value: Counts | null } | null = null;

  constructor(private readonly paths: HistoryPaths) {}

  private storeCounts(now: number): Counts | null {
    if (this.counts !== null && now - this.counts.at < COUNTS_TTL_MS) return this.counts.value;
    const db = openReader(this.paths.historyDb);
    try {
      this.counts = { at: now, value: db === null ? null : storeCounts(db) };
    } finally {
      db?.close();
    }
    return this.counts.value;
  }

  /** The one function the dashboard asks for status. */
  build(now = Date.now()): DashboardStatus {
    const health = healthStatus(this.paths, { now });
    return { ...health, counts: health.store ?? this.storeCounts(now) };
  }
}
