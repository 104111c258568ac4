// The reader worker thread: serves search_history and get_conversation for
// the broker's HistoryService, and the dashboard's reads, on its own
// read-only connections, so queries never wait behind the writer's batches
// and no SQLite runs on the thread that serves requests. Calls arrive over
// protocols/thread-calls.ts; errors cross as HistoryErrorShape.

import { parentPort } from 'node:worker_threads';
import type { DashboardReaderApi } from '../protocols/dashboard.ts';
import { HistoryError } from '../protocols/errors.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { StatusBuilder } from '../src/dashboard/status.ts';
import { DashboardReader } from '../src/read/dashboard-reader.ts';
import { answerCalls } from '../src/service/thread-calls.ts';

let reader: DashboardReader | null = null;
let status: StatusBuilder | null = null;

function started(): DashboardReader {
  if (reader === null) throw new HistoryError('STOPPED', 'the reader worker has not been started');
  return reader;
}

const api: DashboardReaderApi = {
  start: async (options) => {
    reader?.close();
    const paths = resolvePaths(options.env as NodeJS.ProcessEnv);
    reader = new DashboardReader(paths);
    status = new StatusBuilder(paths);
  },
  search: (input) => started().search(input),
  getConversation: (input) => started().getConversation(input),
  conversations: (input) => started().conversations(input),
  family: (id) => started().family(id),
  conversationBefore: (input) => started().conversationBefore(input),
  document: (id) => started().document(id),
  sources: (input) => started().sources(input),
  rawSource: (source) => started().rawSource(source),
  rawPage: (source, generation, from) => started().rawPage(source, generation, from),
  changes: (since) => started().changes(since),
  activity: (now) => started().activity(now),
  status: async () => {
    if (status === null) throw new HistoryError('STOPPED', 'the reader worker has not been started');
    return status.build();
  },
  stop: async () => {
    reader?.close();
    reader = null;
    status = null;
  },
};

if (parentPort === null) throw new Error('reader-worker must run in a worker thread');
answerCalls(parentPort, api);
