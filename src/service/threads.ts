// Worker threads of the history service and the dashboard: how one is
// started (TypeScript entry through actors/ts-entry.mjs). How they are called
// is src/service/thread-calls.ts.

import { Worker, type TransferListItem } from 'node:worker_threads';
import { LIMITS } from '../config/limits.ts';
import { limitHeapGrowth } from './heap-growth.ts';

/** This module compiled into dist/ (bin/build.mjs): its threads load compiled actors too. */
const COMPILED = import.meta.url.endsWith('.js');

/** What else a thread starts with: more workerData (beside `entry`), and what that data transfers (a MessagePort). */
export interface ThreadStart {
  readonly data?: Record<string, unknown>;
  readonly transferList?: readonly TransferListItem[];
  /** The thread's V8 young generation in MiB (default LIMITS.workerYoungGenerationMb). */
  readonly youngGenerationMb?: number;
}

/**
 * Start the actor module `entry` (a path relative to the repository root, e.g.
 * `actors/reader-worker.ts`) in a new thread; from dist/, its compiled `.js`.
 * First, the process's heaps may grow to 1.5 times their live size at most (heap-growth.ts).
 */
export function spawnThread(entry: string, name: string, start: ThreadStart = {}): Worker {
  limitHeapGrowth();
  const root = new URL('../../', import.meta.url);
  const file = COMPILED ? entry.replace(/\.ts$/, '.js') : entry;
  return new Worker(new URL('actors/ts-entry.mjs', root), {
    workerData: { ...start.data, entry: new URL(file, root).href },
    transferList: [...(start.transferList ?? [])],
    name,
    resourceLimits: { maxYoungGenerationSizeMb: start.youngGenerationMb ?? LIMITS.workerYoungGenerationMb },
  });
}
