// `agent-bridge recover [--force] [--json]`: salvage a damaged history.db
// (src/recover/): every readable record and generation goes into a new store
// that takes history.db's place; the damaged file is kept beside it as
// history.db.corrupt-<time>. Then capture runs once, here, to rebuild the
// search index and read again what the sources still hold. With a service
// running, the service does all of it (this waits for its answer).
// Without --force a store SQLite finds nothing wrong with is left alone.

import { existsSync } from 'node:fs';
import { HistoryError } from '../../../protocols/errors.ts';
import type { RecoverOutcome, RecoveryReport } from '../../../protocols/recovery.ts';
import type { OnceSummary } from '../../../protocols/service.ts';
import { resolvePaths, type HistoryPaths } from '../../config/paths.ts';
import { ingestEnvDisabled } from '../../config/ingest-env.ts';
import { recoverHome } from '../../recover/recover.ts';
import { readRecoverOutcome, writeRecoverRequest } from '../../recover/requests.ts';
import { HistoryService } from '../../service/history-service.ts';
import { WriterLock } from '../../store/writer-lock.ts';
import { parse } from '../args.ts';
import { formatBytes, printJson } from '../output.ts';

const POLL_MS = 500;

async function throughService(paths: HistoryPaths, pid: number, force: boolean): Promise<RecoverOutcome> {
  const requestedAt = Date.now();
  writeRecoverRequest(paths, { requestedAt, pid: process.pid, force });
  process.stderr.write(`asked the running history service (pid ${pid}) to recover history.db; waiting for it\n`);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const outcome = readRecoverOutcome(paths);
    if (outcome !== null && outcome.requestedAt >= requestedAt) return outcome;
    if (WriterLock.liveOwner(paths.writerLock)?.pid !== pid) {
      throw new HistoryError('STOPPED', `the service (pid ${pid}) stopped before it recovered history.db; run \`agent-bridge recover\` again`);
    }
  }
}

async function here(paths: HistoryPaths, lock: WriterLock, force: boolean): Promise<{ outcome: RecoverOutcome; capture: OnceSummary | null }> {
  let outcome: RecoverOutcome;
  try {
    outcome = await recoverHome(paths, { requestedAt: Date.now(), force });
  } finally {
    lock.release();
  }
  if (outcome.outcome !== 'recovered' || ingestEnvDisabled()) return { outcome, capture: null };
  // The new store has a reindex begun: this rebuilds the search index and captures what the sources hold now.
  // A service that started meanwhile does the same itself.
  const service = new HistoryService({ mode: 'once', pace: 'max' });
  await service.start();
  try {
    return { outcome, capture: await service.finished() };
  } catch (error) {
    if (error instanceof HistoryError && error.code === 'WRITER_LOCKED') return { outcome, capture: null };
    throw error;
  } finally {
    await service.stop();
  }
}

/** The writer lock, or the pid of the live process that holds it. */
function lockOrOwner(paths: HistoryPaths): WriterLock | number {
  try {
    return WriterLock.acquire(paths.writerLock);
  } catch (error) {
    const owner = error instanceof HistoryError && error.code === 'WRITER_LOCKED' ? WriterLock.liveOwner(paths.writerLock) : null;
    if (owner === null) throw error;
    return owner.pid;
  }
}

function describe(report: RecoveryReport): string[] {
  const s = report.salvaged;
  const lost = report.lost;
  const lines = [
    `${report.damaged} was damaged (${report.reason})`,
    `salvaged ${s.records} records (${formatBytes(s.rawBytes)}${s.fromOrphanPages > 0 ? `, ${s.fromOrphanPages} of them from pages no index reached` : ''}), ${s.conversations} conversations, ${s.sources} sources, ${s.otherRows} other rows`,
    `the damaged file is kept as ${report.keptAs}`,
  ];
  if (report.rebuilt.conversations + report.rebuilt.sources > 0) lines.push(`made again from the records: ${report.rebuilt.conversations} conversations, ${report.rebuilt.sources} source rows`);
  const records = lost.records === null ? 'an unknown number of records (the index over them is damaged too)' : `${lost.records} records`;
  if (lost.records !== 0 || lost.generations.length > 0 || lost.unreadablePages > 0) {
    lines.push(`could not be saved: ${records}, ${lost.unreadablePages} unreadable pages, ${lost.damagedRows} damaged rows`);
    for (const g of lost.generations.slice(0, 20)) lines.push(`  ${g.source} generation ${g.generation}: bytes ${g.missing.map(([a, b]) => `${a}-${b}`).join(', ')}`);
    for (const source of lost.sources.filter((id) => !lost.generations.some((g) => g.source === id)).slice(0, 20)) lines.push(`  ${source}`);
  } else {
    lines.push('nothing was lost');
  }
  const r = report.recapture;
  lines.push(`capture: ${r.continued} sources continue where their records end, ${r.newGeneration} are read again as a new generation, ${r.fromStart} from the beginning`);
  return lines;
}

export async function recover(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { force: { type: 'boolean' }, json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  const paths = resolvePaths();
  const force = flags.force === true;
  if (!existsSync(paths.historyDb)) {
    if (flags.json === true) printJson({ outcome: 'not-damaged', report: null });
    else process.stdout.write(`nothing to recover: ${paths.historyDb} does not exist\n`);
    return 0;
  }
  const lock = lockOrOwner(paths);
  const { outcome, capture } = typeof lock === 'number' ? { outcome: await throughService(paths, lock, force), capture: null } : await here(paths, lock, force);
  if (flags.json === true) {
    printJson({ ...outcome, capture: capture === null ? null : { records: capture.records, rawBytes: capture.rawBytes, reindexedDocuments: capture.reindexedDocuments, documents: capture.documents } });
  } else if (outcome.outcome === 'not-damaged') {
    process.stdout.write(`${paths.historyDb} is not damaged (SQLite's quick_check finds nothing wrong); nothing to recover (--force rebuilds it anyway)\n`);
  } else if (outcome.outcome === 'recovered' && outcome.report !== null) {
    const lines = describe(outcome.report);
    if (capture !== null) lines.push(`search index rebuilt (${capture.reindexedDocuments} documents); ${capture.records} records captured again from the sources`);
    else if (!ingestEnvDisabled()) lines.push('the running service rebuilds the search index and captures again now');
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  if (outcome.outcome === 'failed') {
    process.stderr.write(`agent-bridge recover: ${outcome.error?.message ?? 'failed'}; ${paths.historyDb} is left as it was\n`);
    return 1;
  }
  return 0;
}
