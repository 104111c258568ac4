// HistoryService with its history worker started from a bench entry instead
// of actors/history-worker.ts: the entry installs measuring wrappers, then
// imports the real one (workerData.realEntry). Shared by the bench children.
// The product constructs `new Worker(ts-entry.mjs, { workerData: { entry } })`.

import { createRequire, syncBuiltinESMExports } from 'node:module';
import type * as WorkerThreads from 'node:worker_threads';

/**
 * From now on, a thread that this thread starts with an entry matching
 * `entry` starts from `instrumentEntry` instead, the real entry in its
 * workerData.realEntry (the history worker from a bench child; the writer
 * thread from the instrumented history worker).
 */
export function redirectThreads(entry: RegExp, instrumentEntry: string): void {
  const threads = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
  const OriginalWorker = threads.Worker;
  class InstrumentedWorker extends OriginalWorker {
    constructor(filename: string | URL, options?: WorkerThreads.WorkerOptions) {
      const data = options?.workerData as { entry?: unknown } | undefined;
      if (typeof data?.entry === 'string' && entry.test(data.entry)) {
        options = { ...options, workerData: { ...data, entry: instrumentEntry, realEntry: data.entry } };
      }
      super(filename, options);
    }
  }
  (threads as { Worker: unknown }).Worker = InstrumentedWorker;
  syncBuiltinESMExports();
}

export async function instrumentedHistoryService(instrumentEntry: string): Promise<typeof import('../../src/service/history-service.ts').HistoryService> {
  redirectThreads(/\/actors\/history-worker\.[jt]s$/, instrumentEntry);
  return (await import('../../src/service/history-service.ts')).HistoryService;
}
