// The wire between the history worker and the writer thread, which owns
// history.db's writable connection during capture (actors/writer-worker.ts).
// Requests travel on one MessagePort and are handled strictly in the order
// they were sent, one at a time; each reply goes back on the same port, and
// then the signal's counter moves, so a caller blocked in Atomics.wait for a
// synchronous reply wakes (src/service/writer-client.ts).

import type { MessagePort } from 'node:worker_threads';
import type { HistoryErrorShape } from './errors.ts';
import type { HistoryMessage } from './history.ts';

/** What the writer thread is started with (its workerData, besides the entry). */
export interface WriterThreadData {
  /** history.db, opened by the thread with openWriter (the schema is already current). */
  readonly historyDb: string;
  /** The thread's end of the channel (transferred). */
  readonly port: MessagePort;
  /** Int32 slots: REPLIES counts replies posted; CLOSED becomes 1 when the thread ends. */
  readonly signal: SharedArrayBuffer;
}

export const SIGNAL_REPLIES = 0;
export const SIGNAL_CLOSED = 1;
export const SIGNAL_SLOTS = 2;

/**
 * `open` must be the first request: its reply says whether the connection
 * opened. `close` ends the thread after the requests sent before it.
 */
export type WriterRequest =
  | { readonly id: number; readonly kind: 'open' }
  | { readonly id: number; readonly kind: 'history'; readonly message: HistoryMessage }
  | { readonly id: number; readonly kind: 'close' };

export type WriterReply =
  /** `ms`: how long the history actor took (a commit's transaction, for the batch latency). */
  | { readonly id: number; readonly ok: true; readonly value: unknown; readonly ms: number }
  | { readonly id: number; readonly ok: false; readonly error: HistoryErrorShape };
