// `agent-bridge status [--json]`: what is captured (read from history.db),
// who the writer is (lock file), the running service's live status
// (history.status.json, published every second while it runs: phase,
// backlog with the capture's rate, percentage and ETA, errors), and the legacy
// migration's progress (live from the service, else from history.db and the
// migration's progress database), the project mirrors' phase, and the problems of the bridge home's
// config.json, read now (the service's own view is in service.config).

import { existsSync } from 'node:fs';
import type { MigrationProgress } from '../../../protocols/migration.ts';
import type { HistoryErrorShape } from '../../../protocols/errors.ts';
import { serializeError } from '../../../protocols/errors.ts';
import type { MirrorStatus } from '../../../protocols/mirror.ts';
import type { HistoryStatus } from '../../../protocols/service.ts';
import type { ConfigStatus } from '../../../protocols/settings.ts';
import { validateConfigFile } from '../../config/config-file.ts';
import type { HistoryPaths } from '../../config/paths.ts';
import { resolvePaths } from '../../config/paths.ts';
import { ingestEnvDisabled } from '../../config/ingest-env.ts';
import { openReader } from '../../store/open.ts';
import { readStatusFile } from '../../store/status-file.ts';
import { WriterLock } from '../../store/writer-lock.ts';
import type { StoreCounts as Counts } from '../../../protocols/history.ts';
import { storeCounts } from '../../store/counts.ts';
import { isCorruption, onStore } from '../../store/store-errors.ts';
import { parse } from '../args.ts';
import { problemLine, reportConfigProblems } from '../config-report.ts';
import { readMigrationProgress } from '../../migration/status.ts';
import { captureProgressText } from '../capture-text.ts';
import { migrationLines } from '../migration-text.ts';
import { scrubLines } from '../scrub-text.ts';
import type { ScrubProgress } from '../../../protocols/history.ts';
import { loadScrubProgress } from '../../store/scrub-store.ts';
import { formatBytes, formatTime, isTty, printJson } from '../output.ts';

export interface StatusReport {
  readonly home: string;
  readonly historyDb: string;
  readonly phase: string;
  readonly writer: { readonly pid: number | null };
  readonly counts: Counts | null;
  readonly service: HistoryStatus | null;
  /** Legacy bridge.db → history.db migration; null before history.db exists. */
  readonly migration: MigrationProgress | null;
  readonly ingestDisabledByEnv: boolean;
  /** The bridge home's config.json, read now: its errors and warnings. */
  readonly config: ConfigStatus;
  /** history.db could not be read (damaged: see `agent-bridge recover`); null when it reads fine. */
  readonly storeError: HistoryErrorShape | null;
  /** What the scrubber has verified, as kept in history.db (the live service's view is service.scrub). */
  readonly verified: ScrubProgress | null;
}

/** What history.db holds and how far its migration is; a damaged store is reported, not thrown. */
function readStore(paths: HistoryPaths): { counts: Counts | null; verified: ScrubProgress | null; migration: MigrationProgress | null; error: HistoryErrorShape | null } {
  try {
    const db = existsSync(paths.historyDb) ? openReader(paths.historyDb) : null;
    let counts: Counts | null = null;
    let verified: ScrubProgress | null = null;
    try {
      counts = db === null ? null : onStore(paths.historyDb, () => storeCounts(db));
      verified = db === null ? null : onStore(paths.historyDb, () => loadScrubProgress(db));
    } finally {
      db?.close();
    }
    return { counts, verified, migration: onStore(paths.historyDb, () => readMigrationProgress(paths)), error: null };
  } catch (error) {
    if (!isCorruption(error)) throw error;
    return { counts: null, verified: null, migration: null, error: serializeError(error) };
  }
}

function mirrorLine(mirror: MirrorStatus): string {
  const steps = mirror.steps.count > 0 ? `; ${mirror.steps.records} records copied in ${mirror.steps.count} steps (p99 ${mirror.steps.p99Ms.toFixed(1)} ms)` : '';
  return `mirrors: ${mirror.phase}${mirror.detail === undefined ? '' : ` (${mirror.detail})`}${steps}; agent-bridge mirrors lists them`;
}

export async function status(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  const paths = resolvePaths();
  // Text output shows the problems itself; with --json they also go to stderr for the person running it.
  const config: ConfigStatus = { file: paths.configJson, problems: flags.json === true ? reportConfigProblems(paths) : validateConfigFile(paths.configJson) };
  const owner = WriterLock.liveOwner(paths.writerLock);
  const stored = readStore(paths);
  const counts = stored.counts;
  const verified = stored.verified;
  const published = readStatusFile(paths);
  // A status file left by a process that is no longer the writer is history, not live state.
  const service = published !== null && owner !== null && published.writer.pid === owner.pid ? published : null;
  const disabled = ingestEnvDisabled();
  const phase = disabled ? 'disabled' : service !== null ? service.phase : owner !== null ? 'running' : 'stopped';
  const migration = service?.migration ?? stored.migration;
  const report: StatusReport = { home: paths.bridgeHome, historyDb: paths.historyDb, phase, writer: { pid: owner?.pid ?? null }, counts, service, migration, ingestDisabledByEnv: disabled, config, storeError: stored.error, verified };
  const code = stored.error === null ? 0 : 1;
  if (flags.json === true) {
    printJson(report);
    return code;
  }
  const lines = [`history: ${phase}${owner !== null ? ` (writer pid ${owner.pid})` : ''}`, `store:   ${paths.historyDb}`];
  if (stored.error !== null) {
    lines.push(`         damaged: ${stored.error.message}`);
  } else if (counts !== null) {
    lines.push(`         ${counts.sources} sources, ${counts.conversations} conversations, ${counts.records} records (${formatBytes(counts.rawBytes)}), ${counts.documents} documents`);
  } else {
    lines.push('         nothing captured yet');
  }
  for (const p of config.problems) lines.push(`config:  ${problemLine(p)}`);
  if (migration !== null) lines.push(...migrationLines(migration, { tty: isTty(), live: service !== null }));
  lines.push(...scrubLines(service?.scrub ?? null, verified));
  if (service !== null) {
    lines.push(`backlog: ${service.backlog.sources} sources, ${formatBytes(service.backlog.bytes)}`);
    // A status file from a build before capture progress was published has no `capture`.
    if ((service as Partial<HistoryStatus>).capture !== undefined) lines.push(`capture: ${captureProgressText(service.capture, service.backlog, { tty: isTty() })}`);
    lines.push(`batches: ${service.batches.committed} (p50 ${service.batches.p50Ms.toFixed(1)} ms, p99 ${service.batches.p99Ms.toFixed(1)} ms)`);
    if (service.pausedBy.length > 0) lines.push(`paused:  ${service.pausedBy.join(', ')}`);
    lines.push(mirrorLine(service.mirror));
    if (service.discovery.gone > 0) lines.push(`gone:    ${service.discovery.gone} captured files no longer exist on disk (their bytes stay retained)`);
    if (service.lastError !== null) lines.push(`error:   ${service.lastError.code}: ${service.lastError.message}`);
    for (const p of service.problems.slice(0, 10)) lines.push(`problem: ${p.path}: ${p.code}: ${p.message}`);
    lines.push(`updated: ${formatTime(service.updatedAt)}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return code;
}
