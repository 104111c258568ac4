// The replies a caller waits for from one thread, paired with its requests
// by id (the writer thread's client and ThreadCalls both use it).
// Invariant: once ended, every reply still waited for and every later wait
// fails with the same error; none waits forever on a thread that is gone.

import { deserializeError, type HistoryError, type HistoryErrorShape } from '../../protocols/errors.ts';

/** A reply as a thread posts it: the value, or the shape of its error. */
export type Settled<V> = { readonly id: number; readonly ok: true; readonly value: V } | { readonly id: number; readonly ok: false; readonly error: HistoryErrorShape };

interface Waiting<V> {
  readonly resolve: (value: V) => void;
  readonly reject: (error: Error) => void;
}

export class PendingReplies<V> {
  private lastId = 0;
  private readonly waiting = new Map<number, Waiting<V>>();
  private endedWith: HistoryError | null = null;

  /** A new request id. A caller that reads its own reply synchronously takes one without waiting on it. */
  nextId(): number {
    return ++this.lastId;
  }

  /** The reply to request `id`: settled by `resolve` or `reject`, or failed by `end`. */
  wait(id: number): Promise<V> {
    if (this.endedWith !== null) return Promise.reject(this.endedWith);
    return new Promise<V>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }

  /** Settle the wait of `reply.id` with the reply's value or its error. */
  settle(reply: Settled<V>): void {
    if (reply.ok) this.resolve(reply.id, reply.value);
    else this.reject(reply.id, deserializeError(reply.error));
  }

  resolve(id: number, value: V): void {
    this.take(id)?.resolve(value);
  }

  reject(id: number, error: Error): void {
    this.take(id)?.reject(error);
  }

  /** Replies waited for and not yet settled. */
  get size(): number {
    return this.waiting.size;
  }

  /** Null until `end`; then the error every wait gets. */
  get ended(): HistoryError | null {
    return this.endedWith;
  }

  /** The thread is gone: fail every waiting reply. True for the call that ended it (the first error is kept). */
  end(error: HistoryError): boolean {
    const first = this.endedWith === null;
    this.endedWith ??= error;
    for (const waiting of this.waiting.values()) waiting.reject(this.endedWith);
    this.waiting.clear();
    return first;
  }

  private take(id: number): Waiting<V> | undefined {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    return waiting;
  }
}
