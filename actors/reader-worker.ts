// The reader worker thread: serves search_history and get_conversation for
// the broker's HistoryService on its own read-only connections, so queries
// never wait behind the writer's batches in the history worker and the
// broker's thread never runs SQLite. Errors cross as HistoryErrorShape.

import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { parentPort } from 'node:worker_threads';
import { HistoryError, serializingErrors } from '../protocols/errors.ts';
import type { ReaderWorkerApi } from '../protocols/search.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { HistoryReader } from '../src/read/history-reader.ts';

let reader: HistoryReader | null = null;

function started(): HistoryReader {
  if (reader === null) throw new HistoryError('STOPPED', 'the reader worker has not been started');
  return reader;
}

const api: ReaderWorkerApi = {
  start: (options) =>
    serializingErrors(() => {
      reader?.close();
      reader = new HistoryReader(resolvePaths(options.env as NodeJS.ProcessEnv));
    }),
  search: (input) => serializingErrors(() => started().search(input)),
  getConversation: (input) => serializingErrors(() => started().getConversation(input)),
  stop: () =>
    serializingErrors(() => {
      reader?.close();
      reader = null;
    }),
};

if (parentPort === null) throw new Error('reader-worker must run in a worker thread');
expose(api, nodeEndpoint(parentPort as never));
