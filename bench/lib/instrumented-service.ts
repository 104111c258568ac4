// HistoryService with its history worker started from a bench entry instead
// of actors/history-worker.ts: the entry installs measuring wrappers, then
// imports the real one (workerData.realEntry). Shared by the bench children.
// The product constructs `new Worker(ts-entry.mjs, { workerData: { entry } })`.

import { createRequire, syncBuiltinESMExports } from 'node:module';
import type * as WorkerThreads from 'node:worker_threads';

export async function instrumentedHistoryService(instrumentEntry: string): Promise<typeof import('../../src/service/history-service.ts').HistoryService> {
  const require = createRequire(import.meta.url);
  const threads = require('node:worker_threads') as typeof WorkerThreads;
  const OriginalWorker = threads.Worker;
  class InstrumentedWorker extends OriginalWorker {
    constructor(filename: string | URL, options?: WorkerThreads.WorkerOptions) {
      const data = options?.workerData as { entry?: unknown } | undefined;
      if (typeof data?.entry === 'string' && data.entry.endsWith('/actors/history-worker.ts')) {
        options = { ...options, workerData: { ...data, entry: instrumentEntry, realEntry: data.entry } };
      }
      super(filename, options);
    }
  }
  (threads as { Worker: unknown }).Worker = InstrumentedWorker;
  syncBuiltinESMExports();
  return (await import('../../src/service/history-service.ts')).HistoryService;
}
