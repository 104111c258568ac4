// The wire of a thread that answers calls (actors/reader-worker.ts): one
// request and one reply per call, on the thread's parentPort. Replies may
// come in any order; `id` pairs them. An error crosses as a
// HistoryErrorShape and becomes a HistoryError with its code again.
//
// Why not comlink: each comlink call adds and removes a port listener,
// makes a random id and wraps every argument, and the reply's object graph
// is cloned into the dashboard's main thread and then stringified there;
// and a comlink call to a thread that has exited never settles.
// bench/dashboard.ts, three interleaved runs each on 2026-12-06: the
// dashboard's /api/search p50 above a bare node:http server with the same
// reader thread was 0.19-0.37 ms through comlink, 0.13-0.22 ms through this
// wire with `json` replies.

import type { HistoryErrorShape } from './errors.ts';

export interface CallRequest {
  readonly id: number;
  /** A method of the thread's API object. */
  readonly method: string;
  readonly args: readonly unknown[];
  /** Reply with the value as JSON text (JSON.stringify in the answering thread): one string crosses, not an object graph. */
  readonly json: boolean;
}

export type CallReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: HistoryErrorShape };
