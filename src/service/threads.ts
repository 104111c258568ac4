// Worker threads of the history service and the dashboard: how one is
// started (TypeScript entry through actors/ts-entry.mjs) and how errors that
// crossed as plain HistoryErrorShape objects become HistoryErrors again.

import { Worker, type TransferListItem } from 'node:worker_threads';
import type { HistoryErrorShape } from '../../protocols/errors.ts';
import { deserializeError } from '../../protocols/errors.ts';
import { LIMITS } from '../config/limits.ts';
import { limitHeapGrowth } from './heap-growth.ts';

function isErrorShape(value: unknown): value is HistoryErrorShape {
  return value !== null && typeof value === 'object' && (value as { name?: unknown }).name === 'HistoryError' && typeof (value as { code?: unknown }).code === 'string';
}

/** Errors from a worker arrive as plain shapes; give callers real HistoryErrors. */
export async function unwrap<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw isErrorShape(error) ? deserializeError(error) : error;
  }
}

/** This module compiled into dist/ (bin/build.mjs): its threads load compiled actors too. */
const COMPILED = import.meta.url.endsWith('.js');

/** What else a thread starts with: more workerData (beside `entry`), and what that data transfers (a MessagePort). */
export interface ThreadStart {
  readonly data?: Record<string, unknown>;
  readonly transferList?: readonly TransferListItem[];
}

/**
 * Start the actor module `entry` (a path relative to the repository root, e.g.
 * `actors/reader-worker.ts`) in a new thread; from dist/, its compiled `.js`.
 * First, the process's heaps may grow to twice their live size at most (heap-growth.ts).
 */
export function spawnThread(entry: string, name: string, start: ThreadStart = {}): Worker {
  limitHeapGrowth();
  const root = new URL('../../', import.meta.url);
  const file = COMPILED ? entry.replace(/\.ts$/, '.js') : entry;
  return new Worker(new URL('actors/ts-entry.mjs', root), {
    workerData: { ...start.data, entry: new URL(file, root).href },
    transferList: [...(start.transferList ?? [])],
    name,
    resourceLimits: { maxYoungGenerationSizeMb: LIMITS.workerYoungGenerationMb },
  });
}
