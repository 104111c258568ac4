// `agent-bridge ingest --once [--pace spec|max] [--json]`: the same pipeline
// as serve, until no work remains.

import { resolvePaths } from '../../config/paths.ts';
import { HistoryService } from '../../service/history-service.ts';
import { UsageError, choiceFlag, parse } from '../args.ts';
import { captureProgressText } from '../capture-text.ts';
import { reportConfigProblems } from '../config-report.ts';
import { migrationLines } from '../migration-text.ts';
import { formatBytes, isTty, printJson } from '../output.ts';

export async function ingest(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { once: { type: 'boolean' }, pace: { type: 'string' }, json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  if (flags.once !== true) throw new UsageError('ingest needs --once (use `agent-bridge serve` to keep running)');
  const pace = choiceFlag(flags.pace, 'pace', ['spec', 'max'] as const) ?? 'spec';
  const service = new HistoryService({ mode: 'once', pace });
  if (service.disabled) {
    process.stderr.write('agent-bridge history: ingestion is disabled by AGENT_BRIDGE_HISTORY_INGEST\n');
    return 0;
  }
  reportConfigProblems(resolvePaths());
  await service.start();
  const progress =
    isTty() && flags.json !== true
      ? setInterval(() => {
          service
            .status()
            .then((s) =>
              process.stderr.write(
                s.phase === 'migrating'
                  ? `\r${migrationLines(s.migration, { tty: true })[0] ?? ''}   `
                  : `\r${s.phase}: ${captureProgressText(s.capture, s.backlog, { tty: true })}\x1b[K`,
              ),
            )
            .catch(() => undefined);
        }, 500)
      : null;
  try {
    const summary = await service.finished();
    if (progress !== null) process.stderr.write('\n');
    if (flags.json === true) printJson(summary);
    else
      process.stdout.write(
        `captured ${summary.records} records (${formatBytes(summary.rawBytes)}), ${summary.documents} documents in ${summary.batches} batches, ${(summary.elapsedMs / 1000).toFixed(1)} s\n`,
      );
    return 0;
  } finally {
    if (progress !== null) clearInterval(progress);
    await service.stop();
  }
}
