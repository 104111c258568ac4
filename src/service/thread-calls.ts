// Calls into a worker thread over the wire of protocols/thread-calls.ts.
//   answerCalls   in the thread: each request runs the named method of the
//                 API object; its value (or JSON text of it) or its error
//                 goes back.
//   ThreadCalls   in the caller: typed `call` and `callJson`, each a promise
//                 that settles with its reply.
// Invariant: once the thread has exited, every call still waiting and every
// later one fails with STOPPED; none waits forever on a dead thread.

import type { MessagePort, Worker } from 'node:worker_threads';
import { HistoryError, serializeError } from '../../protocols/errors.ts';
import type { CallReply, CallRequest } from '../../protocols/thread-calls.ts';
import { PendingReplies } from './pending-replies.ts';

type Method = (...args: never[]) => unknown;
/** The callable methods of an API object. */
export type MethodName<Api> = { [K in keyof Api]: Api[K] extends Method ? K : never }[keyof Api] & string;
export type CallArgs<F> = F extends (...args: infer A) => unknown ? A : never;
/** What a call of `F` resolves to in the caller. */
export type CallResult<F> = F extends (...args: never[]) => infer R ? Awaited<R> : never;

/** In the thread: answer every request arriving on `port` with `api`'s method. */
export function answerCalls(port: MessagePort, api: object): void {
  const methods = api as Record<string, unknown>;
  port.on('message', async (request: CallRequest) => {
    let reply: CallReply;
    try {
      const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
      if (typeof method !== 'function') throw new HistoryError('BAD_INPUT', `this thread has no call named ${JSON.stringify(request.method)}`);
      const value: unknown = await method.apply(api, request.args);
      reply = { id: request.id, ok: true, value: request.json ? JSON.stringify(value) : value };
    } catch (error) {
      reply = { id: request.id, ok: false, error: serializeError(error) };
    }
    try {
      port.postMessage(reply);
    } catch (error) {
      // A value structured clone cannot copy (a function, say): the caller gets why, and the thread goes on.
      port.postMessage({ id: request.id, ok: false, error: serializeError(error) } satisfies CallReply);
    }
  });
}

/** In the caller: calls to the thread `worker` runs (its entry calls answerCalls on its parentPort). */
export class ThreadCalls<Api extends object> {
  private readonly replies = new PendingReplies<unknown>();

  /** `name` says which thread in the STOPPED error (e.g. "the history reader thread"). */
  constructor(
    private readonly worker: Worker,
    name: string,
  ) {
    worker.on('message', (reply: CallReply) => this.replies.settle(reply));
    worker.on('exit', (code) => this.replies.end(new HistoryError('STOPPED', `${name} exited with code ${code}`)));
  }

  call<K extends MethodName<Api>>(method: K, ...args: CallArgs<Api[K]>): Promise<CallResult<Api[K]>> {
    return this.post(method, args, false) as Promise<CallResult<Api[K]>>;
  }

  /** The value as JSON text, made in the thread. */
  callJson<K extends MethodName<Api>>(method: K, ...args: CallArgs<Api[K]>): Promise<string> {
    return this.post(method, args, true) as Promise<string>;
  }

  /** Calls sent and not yet answered. */
  get inFlight(): number {
    return this.replies.size;
  }

  /** Null while the thread runs; the error every call gets once it has exited. */
  get ended(): HistoryError | null {
    return this.replies.ended;
  }

  private post(method: string, args: readonly unknown[], json: boolean): Promise<unknown> {
    if (this.replies.ended !== null) return Promise.reject(this.replies.ended);
    const id = this.replies.nextId();
    const reply = this.replies.wait(id);
    try {
      this.worker.postMessage({ id, method, args, json } satisfies CallRequest);
    } catch (error) {
      // An argument structured clone cannot copy: nothing was sent, so nothing is left waiting.
      this.replies.reject(id, error as Error);
    }
    return reply;
  }
}
