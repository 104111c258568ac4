// `agent-bridge serve [--no-dashboard]`: the history service on the real
// home until stopped, and the dashboard beside it unless switched off
// (--no-dashboard or config.json `history.dashboard.enabled: false`).

import { startDashboard, type Dashboard } from '../../dashboard/server.ts';
import { dashboardSettings, resolveListen } from '../../dashboard/launch.ts';
import { resolvePaths } from '../../config/paths.ts';
import { HistoryService } from '../../service/history-service.ts';
import { parse } from '../args.ts';

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
  const { flags } = parse(argv, { 'no-dashboard': { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  const service = new HistoryService({
    mode: 'serve',
    onEvent: (event) => process.stderr.write(`agent-bridge history: ${event.detail}\n`),
  });
  if (service.disabled) {
    process.stderr.write('agent-bridge history: ingestion is disabled by AGENT_BRIDGE_HISTORY_INGEST; not starting\n');
    return 0;
  }
  await service.start();
  const dashboard = flags['no-dashboard'] === true ? null : await hostDashboard();
  const first = await service.status();
  process.stderr.write(`agent-bridge history: ${first.phase} (pid ${process.pid}); Ctrl-C stops\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await dashboard?.close();
  await service.stop();
  return 0;
}
