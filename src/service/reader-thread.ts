// One reader thread (actors/reader-worker.ts), started on a home's
// environment. The broker's HistoryService keeps one for search_history and
// get_conversation; the dashboard's ReaderPool keeps a few. A call made
// before the thread has opened its reader waits for that, and fails with the
// start's error if the start failed.

import type { Worker } from 'node:worker_threads';
import type { DashboardReaderApi } from '../../protocols/dashboard.ts';
import { ThreadCalls, type CallArgs, type CallResult, type MethodName } from './thread-calls.ts';
import { spawnThread } from './threads.ts';

/** How long stop() waits for the thread to close its connections before it is terminated. */
const STOP_WAIT_MS = 1000;

export class ReaderThread {
  private readonly worker: Worker;
  private readonly calls: ThreadCalls<DashboardReaderApi>;
  private readonly ready: Promise<void>;
  /** Calls made and not yet answered, those waiting for the start included (the pool balances on it). */
  private pending = 0;

  /** `name` names the thread (in diagnostics and in STOPPED errors); `onError` hears an uncaught error before the thread exits. */
  constructor(env: Readonly<Record<string, string | undefined>>, name: string, onError?: (error: Error) => void) {
    this.worker = spawnThread('actors/reader-worker.ts', name);
    this.worker.on('error', (error) => onError?.(error));
    this.calls = new ThreadCalls<DashboardReaderApi>(this.worker, `the reader thread ${name}`);
    this.ready = this.calls.call('start', { env });
    this.ready.catch(() => undefined);
  }

  call<K extends MethodName<DashboardReaderApi>>(method: K, ...args: CallArgs<DashboardReaderApi[K]>): Promise<CallResult<DashboardReaderApi[K]>> {
    return this.counted(() => this.calls.call(method, ...args));
  }

  /** The value as JSON text, made in the reader thread (for a response body). */
  callJson<K extends MethodName<DashboardReaderApi>>(method: K, ...args: CallArgs<DashboardReaderApi[K]>): Promise<string> {
    return this.counted(() => this.calls.callJson(method, ...args));
  }

  private async counted<T>(call: () => Promise<T>): Promise<T> {
    this.pending++;
    try {
      await this.ready;
      return await call();
    } finally {
      this.pending--;
    }
  }

  get inFlight(): number {
    return this.pending;
  }

  /** Whether the thread has exited (every call then fails with STOPPED). */
  get exited(): boolean {
    return this.calls.ended !== null;
  }

  /** Close the thread's connections (waiting at most STOP_WAIT_MS), then end it. */
  async stop(): Promise<void> {
    try {
      if (!this.exited) await Promise.race([this.calls.call('stop'), new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
    } catch {
      // a thread that is already gone has nothing to close
    } finally {
      await this.worker.terminate();
    }
  }
}
