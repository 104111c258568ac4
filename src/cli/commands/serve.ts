// `agent-bridge serve`: the history service on the real home until stopped.

import { resolvePaths } from '../../config/paths.ts';
import { HistoryService } from '../../service/history-service.ts';
import { parse } from '../args.ts';
import { watchConfigProblems } from '../config-report.ts';

export async function serve(argv: readonly string[]): Promise<number> {
  parse(argv, {}, { min: 0, max: 0, names: '' });
  const service = new HistoryService({
    mode: 'serve',
    onEvent: (event) => process.stderr.write(`agent-bridge history: ${event.detail}\n`),
  });
  if (service.disabled) {
    process.stderr.write('agent-bridge history: ingestion is disabled by AGENT_BRIDGE_HISTORY_INGEST; not starting\n');
    return 0;
  }
  // Config problems now, and whenever an edit changes them (the service applies edits without a restart).
  const unwatch = watchConfigProblems(resolvePaths());
  try {
    await service.start();
    const first = await service.status();
    process.stderr.write(`agent-bridge history: ${first.phase} (pid ${process.pid}); Ctrl-C stops\n`);
    await new Promise<void>((resolve) => {
      const stop = (): void => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await service.stop();
  } finally {
    unwatch();
  }
  return 0;
}
