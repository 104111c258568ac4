// The reader worker thread: serves search_history and get_conversation for
// the broker's HistoryService, and the dashboard's reads, on its own
// read-only connections, so queries never wait behind the writer's batches
// in the history worker and no SQLite runs on the thread that serves
// requests. Errors cross as HistoryErrorShape.

import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { parentPort } from 'node:worker_threads';
import type { DashboardReaderApi } from '../protocols/dashboard.ts';
import { HistoryError, serializingErrors } from '../protocols/errors.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { StatusBuilder } from '../src/dashboard/status.ts';
import { DashboardReader } from '../src/read/dashboard-reader.ts';

let reader: DashboardReader | null = null;
let status: StatusBuilder | null = null;

function started(): DashboardReader {
  if (reader === null) throw new HistoryError('STOPPED', 'the reader worker has not been started');
  return reader;
}

const api: DashboardReaderApi = {
  start: (options) =>
    serializingErrors(() => {
      reader?.close();
      const paths = resolvePaths(options.env as NodeJS.ProcessEnv);
      reader = new DashboardReader(paths);
      status = new StatusBuilder(paths);
    }),
  search: (input) => serializingErrors(() => started().search(input)),
  getConversation: (input) => serializingErrors(() => started().getConversation(input)),
  conversations: (input) => serializingErrors(() => started().conversations(input)),
  family: (id) => serializingErrors(() => started().family(id)),
  conversationBefore: (input) => serializingErrors(() => started().conversationBefore(input)),
  document: (id) => serializingErrors(() => started().document(id)),
  sources: (input) => serializingErrors(() => started().sources(input)),
  rawSource: (source) => serializingErrors(() => started().rawSource(source)),
  rawPage: (source, generation, from) => serializingErrors(() => started().rawPage(source, generation, from)),
  changes: (since) => serializingErrors(() => started().changes(since)),
  activity: (now) => serializingErrors(() => started().activity(now)),
  status: () =>
    serializingErrors(() => {
      if (status === null) throw new HistoryError('STOPPED', 'the reader worker has not been started');
      return status.build();
    }),
  stop: () =>
    serializingErrors(() => {
      reader?.close();
      reader = null;
      status = null;
    }),
};

if (parentPort === null) throw new Error('reader-worker must run in a worker thread');
expose(api, nodeEndpoint(parentPort as never));
