// A thread answering calls (src/service/thread-calls.ts) for
// test/thread-calls.test.ts: each method shows one behaviour of the wire.

import { parentPort, resourceLimits } from 'node:worker_threads';
import { HistoryError } from '../../protocols/errors.ts';
import { answerCalls } from '../../src/service/thread-calls.ts';

export const callsThreadApi = {
  echo: async (value: unknown) => value,
  /** Resolves with `value` after `ms`, so replies can come back out of order. */
  later: (ms: number, value: string) => new Promise<string>((resolve) => setTimeout(() => resolve(value), ms)),
  busy: async () => {
    throw new HistoryError('STORE_BUSY', 'the store is busy', { step: 'test step' });
  },
  crash: () => {
    throw new TypeError('not a HistoryError');
  },
  /** A value structured clone cannot copy. */
  unclonable: async () => ({ f: () => 1 }),
  /** Never answers: a call waiting when the thread exits. */
  hang: () => new Promise<never>(() => undefined),
  exit: () => process.exit(3),
  /** This thread's V8 young generation cap, as it was started with. */
  youngGenerationMb: async () => resourceLimits.maxYoungGenerationSizeMb,
};

if (parentPort !== null) answerCalls(parentPort, callsThreadApi);
