// `agent-bridge serve [--no-dashboard] [--progress-every 1m]`: the history
// service on the real home until stopped, and the dashboard beside it unless
// switched off (--no-dashboard or config.json `history.dashboard.enabled:
// false`). It says what it does (on stderr): the writer state, the dashboard
// URL, each source root with its file count, and the backlog's progress
// (serve-report.ts).

import { startDashboard, type Dashboard } from '../../dashboard/server.ts';
import { dashboardSettings, resolveListen } from '../../dashboard/launch.ts';
import { resolvePaths } from '../../config/paths.ts';
import { HistoryService } from '../../service/history-service.ts';
import { parse } from '../args.ts';
import { watchConfigProblems } from '../config-report.ts';
import { PREFIX, ProgressReporter, sourceLines } from '../serve-report.ts';
import { parseDurationFlag } from '../time.ts';

const PROGRESS_POLL_MS = 1000;
const PROGRESS_LINE_EVERY_MS = 60_000;

async function hostDashboard(): Promise<Dashboard | null> {
  try {
    const settings = dashboardSettings(resolvePaths());
    if (!settings.enabled) return null;
    const running = await startDashboard(resolveListen(settings, {}));
    process.stderr.write(`agent-bridge history: dashboard ${running.loginUrl}\n`);
    return running;
  } catch (error) {
    process.stderr.write(`agent-bridge history: dashboard not started: ${(error as Error).message}\n`);
    return null;
  }
}

export async function serve(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { 'no-dashboard': { type: 'boolean' }, 'progress-every': { type: 'string' } }, { min: 0, max: 0, names: '' });
  const everyMs = parseDurationFlag(flags['progress-every'], 'progress-every') ?? PROGRESS_LINE_EVERY_MS;
  const say = (text: string): void => {
    process.stderr.write(text);
  };
  const service = new HistoryService({
    mode: 'serve',
    onEvent: (event) => say(`${PREFIX}${event.detail}\n`),
  });
  if (service.disabled) {
    say(`${PREFIX}ingestion is disabled by AGENT_BRIDGE_HISTORY_INGEST; not starting\n`);
    return 0;
  }
  const paths = resolvePaths();
  // Config problems now, and whenever an edit changes them (the service applies edits without a restart).
  const unwatch = watchConfigProblems(paths);
  try {
    const sources = sourceLines(paths).catch((error: unknown) => [`  (the source roots could not be listed: ${String(error)})`]);
    await service.start();
    const dashboard = flags['no-dashboard'] === true ? null : await hostDashboard();
    const first = await service.status();
    const role = first.phase === 'standby' ? `standby: pid ${first.writer.pid ?? '?'} is the writer, taking over when it exits` : first.phase;
    say(`${PREFIX}${role} (pid ${process.pid}, ${paths.historyDb}); Ctrl-C stops\n`);
    say(`${PREFIX}sources:\n${(await sources).join('\n')}\n`);
    const progress = new ProgressReporter(say, { tty: process.stderr.isTTY === true, everyMs });
    const timer = setInterval(() => {
      service
        .progress()
        .then((status) => progress.update(status, Date.now()))
        .catch(() => undefined); // a restarting worker: the next poll reports again
    }, PROGRESS_POLL_MS);
    await new Promise<void>((resolve) => {
      const stop = (): void => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    clearInterval(timer);
    progress.close();
    await dashboard?.close();
    await service.stop();
  } finally {
    unwatch();
  }
  return 0;
}
