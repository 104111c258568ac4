// The history worker thread: hosts the supervisor and exposes it to the
// broker's HistoryService over comlink. Errors cross as plain
// HistoryErrorShape objects (comlink would reduce an Error to its message).

import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { parentPort } from 'node:worker_threads';
import { serializingErrors } from '../protocols/errors.ts';
import type { HistoryWorkerApi } from '../protocols/service.ts';
import { Supervisor } from './supervisor.ts';

const supervisor = new Supervisor();

const api: HistoryWorkerApi = {
  start: (options) => serializingErrors(() => supervisor.start(options)),
  finished: () => serializingErrors(() => supervisor.finished()),
  stop: () => serializingErrors(() => supervisor.stop()),
  pressure: (active) => supervisor.pressure(active),
  lockError: () => supervisor.lockError(),
  status: () => supervisor.status(),
  progress: () => supervisor.progress(),
};

if (parentPort === null) throw new Error('history-worker must run in a worker thread');
expose(api, nodeEndpoint(parentPort as never));
