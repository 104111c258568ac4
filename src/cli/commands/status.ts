// `agent-bridge status [--json]`: what is captured (read from history.db),
// who the writer is (lock file), the running service's live status
// (history.status.json, published every 2 s while it runs: phases of capture
// and of the project mirrors), and the legacy migration's progress (live
// from the service, else from history.db and the migration's progress
// database).

import { existsSync } from 'node:fs';
import type { MigrationProgress } from '../../../protocols/migration.ts';
import type { MirrorStatus } from '../../../protocols/mirror.ts';
import type { HistoryStatus } from '../../../protocols/service.ts';
import { resolvePaths } from '../../config/paths.ts';
import { ingestEnvDisabled } from '../../config/settings.ts';
import { openReader } from '../../store/open.ts';
import { readStatusFile } from '../../store/status-file.ts';
import { WriterLock } from '../../store/writer-lock.ts';
import { storeCounts } from '../../store/counts.ts';
import { parse } from '../args.ts';
import { readMigrationProgress } from '../../migration/status.ts';
import { migrationLines } from '../migration-text.ts';
import { formatBytes, formatTime, isTty, printJson } from '../output.ts';

export interface StatusReport {
  readonly home: string;
  readonly historyDb: string;
  readonly phase: string;
  readonly writer: { readonly pid: number | null };
  readonly counts: ReturnType<typeof storeCounts> | null;
  readonly service: HistoryStatus | null;
  /** Legacy bridge.db → history.db migration; null before history.db exists. */
  readonly migration: MigrationProgress | null;
  readonly ingestDisabledByEnv: boolean;
}

function mirrorLine(mirror: MirrorStatus): string {
  const steps = mirror.steps.count > 0 ? `; ${mirror.steps.records} records copied in ${mirror.steps.count} steps (p99 ${mirror.steps.p99Ms.toFixed(1)} ms)` : '';
  return `mirrors: ${mirror.phase}${mirror.detail === undefined ? '' : ` (${mirror.detail})`}${steps}; agent-bridge mirrors lists them`;
}

export async function status(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  const paths = resolvePaths();
  const owner = WriterLock.liveOwner(paths.writerLock);
  const db = existsSync(paths.historyDb) ? openReader(paths.historyDb) : null;
  const counts = db === null ? null : storeCounts(db);
  db?.close();
  const published = readStatusFile(paths);
  // A status file left by a process that is no longer the writer is history, not live state.
  const service = published !== null && owner !== null && published.writer.pid === owner.pid ? published : null;
  const disabled = ingestEnvDisabled();
  const phase = disabled ? 'disabled' : service !== null ? service.phase : owner !== null ? 'running' : 'stopped';
  const migration = service?.migration ?? readMigrationProgress(paths);
  const report: StatusReport = { home: paths.bridgeHome, historyDb: paths.historyDb, phase, writer: { pid: owner?.pid ?? null }, counts, service, migration, ingestDisabledByEnv: disabled };
  if (flags.json === true) {
    printJson(report);
    return 0;
  }
  const lines = [`history: ${phase}${owner !== null ? ` (writer pid ${owner.pid})` : ''}`, `store:   ${paths.historyDb}`];
  if (counts !== null) {
    lines.push(`         ${counts.sources} sources, ${counts.conversations} conversations, ${counts.records} records (${formatBytes(counts.rawBytes)}), ${counts.documents} documents`);
  } else {
    lines.push('         nothing captured yet');
  }
  if (migration !== null) lines.push(...migrationLines(migration, { tty: isTty(), live: service !== null }));
  if (service !== null) {
    lines.push(`backlog: ${service.backlog.sources} sources, ${formatBytes(service.backlog.bytes)}`);
    lines.push(`batches: ${service.batches.committed} (p50 ${service.batches.p50Ms.toFixed(1)} ms, p99 ${service.batches.p99Ms.toFixed(1)} ms)`);
    if (service.pausedBy.length > 0) lines.push(`paused:  ${service.pausedBy.join(', ')}`);
    lines.push(mirrorLine(service.mirror));
    if (service.discovery.gone > 0) lines.push(`gone:    ${service.discovery.gone} captured files no longer exist on disk (their bytes stay retained)`);
    if (service.lastError !== null) lines.push(`error:   ${service.lastError.code}: ${service.lastError.message}`);
    for (const p of service.problems.slice(0, 10)) lines.push(`problem: ${p.path}: ${p.code}: ${p.message}`);
    lines.push(`updated: ${formatTime(service.updatedAt)}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
