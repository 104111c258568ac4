// `agent-bridge ingest --once [--pace spec|max] [--verify] [--json]`: the same
// pipeline as serve, until no work remains. --verify then compares every
// captured prefix with its file (one scrub sweep, unpaced) and captures a new
// generation of any file that differs, before exiting.

import { resolvePaths } from '../../config/paths.ts';
import type { ScrubStatus } from '../../../protocols/service.ts';
import { HistoryService } from '../../service/history-service.ts';
import { UsageError, choiceFlag, parse } from '../args.ts';
import { captureProgressText } from '../capture-text.ts';
import { reportConfigProblems } from '../config-report.ts';
import { migrationLines } from '../migration-text.ts';
import { formatBytes, isTty, printJson } from '../output.ts';

export async function ingest(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { once: { type: 'boolean' }, pace: { type: 'string' }, verify: { type: 'boolean' }, json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  if (flags.once !== true) throw new UsageError('ingest needs --once (use `agent-bridge serve` to keep running)');
  const pace = choiceFlag(flags.pace, 'pace', ['spec', 'max'] as const) ?? 'spec';
  const service = new HistoryService({ mode: 'once', pace, verify: flags.verify === true });
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
        `captured ${summary.records} records (${formatBytes(summary.rawBytes)}), ${summary.documents} documents in ${summary.batches} batches, ${(summary.elapsedMs / 1000).toFixed(1)} s\n${flags.verify === true ? verifyLine(summary.status.scrub) : ''}`,
      );
    // What was found but not captured (a FIFO named like a transcript, an unreadable file): said, not silent.
    const problems = summary.status.problems;
    if (flags.json !== true && problems.length > 0) {
      for (const p of problems.slice(0, 20)) process.stderr.write(`agent-bridge ingest: ${p.path}: ${p.message} [${p.code}]\n`);
      if (problems.length > 20) process.stderr.write(`agent-bridge ingest: ${problems.length - 20} more (see agent-bridge status)\n`);
    }
    return 0;
  } finally {
    if (progress !== null) clearInterval(progress);
    await service.stop();
  }
}

function verifyLine(scrub: ScrubStatus | null): string {
  const sweep = scrub?.lastSweep;
  if (scrub === null || sweep === null || sweep === undefined) return '';
  const mismatch = sweep.mismatches === 0 || scrub.lastMismatch === null ? '' : `; last differing byte: ${scrub.lastMismatch.path} generation ${scrub.lastMismatch.generation} offset ${scrub.lastMismatch.offset}`;
  return `verified: ${sweep.sources} files equal their captured bytes (${formatBytes(sweep.bytes)} compared); ${sweep.mismatches} differed and were captured again as a new generation${mismatch}\n`;
}
