// The cached status object: what `agent-bridge health --json` prints and the
// dashboard's `GET /api/status` returns. src/status/health.ts builds it from
// the status the running service publishes (<bridge home>/history.status.json,
// once a second) and the writer lock, so it costs a few small file reads and
// no table scan: a broker may poll it every second.

import type { CaptureProgress } from './capture.ts';
import type { HistoryErrorShape } from './errors.ts';
import type { MigrationPass, MigrationPhase } from './migration.ts';
import type { Pace, PauseReason, Phase } from './service.ts';

export const HEALTH_VERSION = 1;

/** A live writer whose published status is older than this is reported `stale`. */
export const HEALTH_STALE_AFTER_MS = 10_000;

export type ServiceState =
  /** A live writer publishes its status. */
  | 'running'
  /** A live writer that has not published a status yet (it started less than HEALTH_STALE_AFTER_MS ago). */
  | 'starting'
  /** A live writer whose status is older than HEALTH_STALE_AFTER_MS: busy in one long step, or stuck. */
  | 'stale'
  /** No live writer: nothing is being captured. */
  | 'stopped'
  /** AGENT_BRIDGE_HISTORY_INGEST=false|0 in this environment: the service does not start. */
  | 'disabled';

export interface HealthService {
  readonly state: ServiceState;
  /** The writer's pid (live owner of the writer lock), or null. */
  readonly pid: number | null;
  readonly mode: 'serve' | 'once' | null;
  readonly pace: Pace | null;
  /** When the writer took the lock (epoch ms). */
  readonly since: number | null;
  /** When the status these figures come from was published, and how old it is. */
  readonly publishedAt: number | null;
  readonly ageMs: number | null;
}

export interface HealthCapture extends CaptureProgress {
  /** The service's phase; `stopped` when no service runs. */
  readonly phase: Phase;
  readonly pausedBy: readonly PauseReason[];
  /** Sources waiting or being read, and their file bytes not captured yet. */
  readonly backlog: { readonly sources: number; readonly bytes: number };
}

export interface HealthMigration {
  /** `none`: no legacy history to migrate and no store yet. */
  readonly phase: MigrationPhase | 'none';
  readonly pass: MigrationPass | null;
  readonly percent: number;
  readonly rowsDone: number;
  readonly rowsTotal: number;
  readonly ioBytesPerSecond: number;
  readonly ioLimitBytesPerSecond: number | null;
  readonly etaSeconds: number | null;
  readonly pausedBy: 'pressure' | 'config' | 'retry' | null;
  /** `<bridge home>/.migration-snapshots/bridge-history-v1-<uuid>.db`, once chosen (kept for good). */
  readonly snapshot: string | null;
  /** The latched failure (phase `failed`), which only an explicit retry clears. */
  readonly failure: HistoryErrorShape | null;
  /** The command that resumes a latched failure, once its cause is fixed; null when nothing is latched. */
  readonly retry: string | null;
  /** Figures from the running service (true), or read from history.db and the progress database (false). */
  readonly live: boolean;
}

/** Project replicas, summed from the mirror actor's status (HistoryStatus.mirror; `agent-bridge mirrors` lists each). */
export interface HealthMirrors {
  readonly phase: string;
  readonly detail: string | null;
  /** Projects with a replica (plugin caches excluded), and how many of them have nothing left to copy. */
  readonly projects: number;
  readonly synced: number;
  /** Projects held back (deferred or refused, each with its reason in `agent-bridge mirrors`). */
  readonly held: number;
  /** Raw records known to be waiting to be copied, over every project. */
  readonly recordsBehind: number;
  readonly lastError: string | null;
}

export interface HealthBatches {
  readonly committed: number;
  readonly lastMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** What the store holds, as the service last counted it (every 5 s); null when no service publishes. */
export interface HealthStore {
  readonly sources: number;
  readonly conversations: number;
  readonly records: number;
  readonly documents: number;
  readonly rawBytes: number;
}

export type HealthErrorOrigin = 'service' | 'migration' | 'source' | 'config' | 'watch';

export interface HealthError {
  readonly origin: HealthErrorOrigin;
  readonly code: string;
  readonly message: string;
  readonly path: string | null;
}

/** At most this many entries in HealthStatus.errors (errorCount has the total). */
export const HEALTH_ERRORS_MAX = 20;

export interface HealthStatus {
  readonly version: typeof HEALTH_VERSION;
  readonly home: string;
  readonly historyDb: string;
  readonly generatedAt: number;
  readonly service: HealthService;
  readonly capture: HealthCapture;
  readonly migration: HealthMigration;
  readonly mirrors: HealthMirrors;
  readonly batches: HealthBatches;
  readonly store: HealthStore | null;
  /** Last errors: the service's, the migration's, then per-source problems (config, files, databases, watch). */
  readonly errors: readonly HealthError[];
  readonly errorCount: number;
}
