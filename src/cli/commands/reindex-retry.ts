// `agent-bridge reindex --retry [--json]`: clear a latched migration failure
// and resume the migration (plain `reindex`, the rebuild of derived search
// data, is in reindex.ts).
//
// Without a running service this process takes the writer lock and runs the
// migration to its end (Ctrl-C stops it at the next chunk; checkpoints are
// kept). With a running service it leaves a retry request for the service's
// migrator and waits until the service has cleared the failure.

import type { MigrationProgress } from '../../../protocols/migration.ts';
import { HistoryError } from '../../../protocols/errors.ts';
import type { HistoryPaths } from '../../config/paths.ts';
import { resolvePaths } from '../../config/paths.ts';
import { ingestEnvDisabled } from '../../config/ingest-env.ts';
import { SettingsWatcher } from '../../config/settings.ts';
import { migrateHome } from '../../migration/migrate-home.ts';
import { writeRetryRequest } from '../../migration/retry.ts';
import type { MigrationRunner } from '../../migration/runner.ts';
import { readMigrationProgress } from '../../migration/status.ts';
import { readStatusFile } from '../../store/status-file.ts';
import { WriterLock } from '../../store/writer-lock.ts';
import { reportConfigProblems } from '../config-report.ts';
import { migrationLines } from '../migration-text.ts';
import { isTty, printJson } from '../output.ts';

const SERVICE_WAIT_MS = 30_000;
const POLL_MS = 500;

function report(progress: MigrationProgress | null, json: boolean, extra: Record<string, unknown> = {}): void {
  if (json) printJson({ ...extra, migration: progress });
  else if (progress !== null) process.stdout.write(`${migrationLines(progress, { tty: isTty() }).join('\n')}\n`);
}

async function retryThroughService(paths: HistoryPaths, pid: number, json: boolean): Promise<number> {
  writeRetryRequest(paths);
  if (!json) process.stderr.write(`asked the running history service (pid ${pid}) to retry the migration\n`);
  const deadline = Date.now() + SERVICE_WAIT_MS;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const live = readStatusFile(paths)?.migration ?? null;
    const stored = readMigrationProgress(paths);
    if (stored !== null && stored.phase !== 'failed') {
      report(live !== null && live.phase !== 'failed' ? live : stored, json, { cleared: true, by: 'service' });
      return 0;
    }
  }
  report(readMigrationProgress(paths), json, { cleared: false, by: 'service' });
  if (!json) process.stderr.write(`the service (pid ${pid}) did not pick up the retry request within ${SERVICE_WAIT_MS / 1000} s\n`);
  return 1;
}

async function retryHere(paths: HistoryPaths, json: boolean): Promise<number> {
  const controller = new AbortController();
  const interrupt = (): void => controller.abort();
  process.once('SIGINT', interrupt);
  let runner: MigrationRunner | null = null;
  const live = isTty() && !json ? setInterval(() => runner !== null && process.stderr.write(`\r${migrationLines(runner.progress(), { tty: true })[0]}   `), 500) : null;
  try {
    const result = await migrateHome({ paths, retry: true, signal: controller.signal, onRunner: (r) => (runner = r) });
    if (live !== null) process.stderr.write('\n');
    if (!json && result.cleared?.cleared === true) process.stdout.write(`cleared the latched failure: ${result.cleared.error?.message ?? 'unknown error'}\n`);
    if (!json && result.cleared?.cleared === false) process.stdout.write('no failure was latched; resumed the migration\n');
    report(result.progress, json, { cleared: result.cleared?.cleared ?? false, by: 'this process' });
    return result.progress.phase === 'verified' ? 0 : 1;
  } finally {
    if (live !== null) clearInterval(live);
    process.removeListener('SIGINT', interrupt);
  }
}

export async function retryMigration(json: boolean): Promise<number> {
  if (ingestEnvDisabled()) {
    process.stderr.write('agent-bridge history: ingestion is disabled by AGENT_BRIDGE_HISTORY_INGEST; nothing was retried\n');
    return 0;
  }
  const paths = resolvePaths();
  reportConfigProblems(paths);
  if (!new SettingsWatcher(paths.configJson).read().settings.ingest) {
    process.stderr.write(`agent-bridge history: ingestion is switched off in ${paths.configJson} (history.ingest); nothing was retried\n`);
    return 0;
  }
  const before = readMigrationProgress(paths);
  if (before?.phase === 'verified' || before === null) {
    report(before, json, { cleared: false });
    if (!json) process.stdout.write(before === null ? 'nothing to migrate: bridge.db holds no legacy history\n' : 'nothing to retry\n');
    return 0;
  }
  const owner = WriterLock.liveOwner(paths.writerLock);
  if (owner !== null) return retryThroughService(paths, owner.pid, json);
  try {
    return await retryHere(paths, json);
  } catch (error) {
    // A service took the writer lock between our look and our try: ask it instead.
    if (error instanceof HistoryError && error.code === 'WRITER_LOCKED') {
      const now = WriterLock.liveOwner(paths.writerLock);
      if (now !== null) return retryThroughService(paths, now.pid, json);
    }
    throw error;
  }
}
