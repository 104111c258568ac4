// `agent-bridge reindex [--retry] [--no-wait] [--json]`: reset derived search data
// (documents, their refs and tags) and rebuild it from the retained records.
// Retained records are never touched. With a service running (another
// process holds the writer lock) the request is handed to it through
// history.reindex.request and, unless --no-wait, this waits until it is done;
// otherwise the rebuild runs here, followed by a capture of pending sources.
// `--retry` instead clears a latched migration failure (reindex-retry.ts).

import { resolvePaths } from '../../config/paths.ts';
import { writeReindexRequest } from '../../config/reindex-request.ts';
import { ingestEnvDisabled } from '../../config/ingest-env.ts';
import { HistoryService } from '../../service/history-service.ts';
import { readStatusFile } from '../../store/status-file.ts';
import { WriterLock } from '../../store/writer-lock.ts';
import { parse } from '../args.ts';
import { reportConfigProblems } from '../config-report.ts';
import { printJson } from '../output.ts';
import { retryMigration } from './reindex-retry.ts';

const POLL_MS = 500;

export async function reindex(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { retry: { type: 'boolean' }, 'no-wait': { type: 'boolean' }, json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  if (flags.retry === true) return retryMigration(flags.json === true);
  if (ingestEnvDisabled()) {
    process.stderr.write('agent-bridge history: ingestion is disabled by AGENT_BRIDGE_HISTORY_INGEST; reindex not started\n');
    return 0;
  }
  const paths = resolvePaths();
  reportConfigProblems(paths);
  const owner = WriterLock.liveOwner(paths.writerLock);
  if (owner !== null) {
    const requestedAt = Date.now();
    writeReindexRequest(paths, requestedAt);
    process.stderr.write(`reindex requested from the running service (pid ${owner.pid})\n`);
    if (flags['no-wait'] === true) return 0;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const status = readStatusFile(paths);
      if (status !== null && status.reindex.lastDone !== null && status.reindex.lastDone >= requestedAt) {
        if (flags.json === true) printJson(status.reindex);
        else process.stdout.write('reindex finished\n');
        return 0;
      }
      if (WriterLock.liveOwner(paths.writerLock) === null) {
        process.stderr.write('the service stopped before the reindex finished; run `agent-bridge reindex` again\n');
        return 1;
      }
    }
  }
  const service = new HistoryService({ mode: 'once', pace: 'max', reindex: true });
  await service.start();
  try {
    const summary = await service.finished();
    if (flags.json === true) printJson(summary.status.reindex);
    else process.stdout.write(`reindex finished: ${summary.reindexedDocuments} documents derived again from retained records\n`);
    return 0;
  } finally {
    await service.stop();
  }
}
