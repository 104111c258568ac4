// The history worker thread: hosts the supervisor and answers the broker's
// HistoryService over protocols/thread-calls.ts. Errors cross as
// HistoryErrorShape objects.

import { parentPort } from 'node:worker_threads';
import type { HistoryWorkerApi } from '../protocols/service.ts';
import { LIMITS } from '../src/config/limits.ts';
import { answerCalls } from '../src/service/thread-calls.ts';
import { Supervisor } from './supervisor.ts';

/** The code this thread exits with when capture's writer thread is lost (HistoryService restarts it; a once run fails). */
const WRITER_LOST_EXIT = 70;

const supervisor = new Supervisor(LIMITS, (error) => {
  console.error(`agent-bridge history: ${error.message}; ending the history worker so that it restarts`);
  // Stopped first: the writer lock is released and the connections closed, so the restarted worker is the writer again.
  void supervisor.stop().finally(() => process.exit(WRITER_LOST_EXIT));
});

const api: HistoryWorkerApi = {
  start: (options) => supervisor.start(options),
  finished: () => supervisor.finished(),
  stop: () => supervisor.stop(),
  pressure: (active) => supervisor.pressure(active),
  lockError: () => supervisor.lockError(),
  status: () => supervisor.status(),
  progress: () => supervisor.progress(),
};

if (parentPort === null) throw new Error('history-worker must run in a worker thread');
answerCalls(parentPort, api);
