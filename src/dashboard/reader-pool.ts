// A small pool of reader threads (src/service/reader-thread.ts) for the
// dashboard: each call goes to the thread with the fewest calls in flight,
// so one slow query occupies one thread and the other requests keep being
// answered. A thread that exits is replaced on the next call; its pending
// calls fail with STOPPED instead of waiting forever. Status is always built
// by the first thread (it keeps the samples its capture rate comes from).

import type { DashboardReaderApi } from '../../protocols/dashboard.ts';
import { HistoryError } from '../../protocols/errors.ts';
import { ReaderThread } from '../service/reader-thread.ts';
import type { CallArgs, CallResult, MethodName } from '../service/thread-calls.ts';

export type ReaderMethod = MethodName<DashboardReaderApi>;

export class ReaderPool {
  private readonly slots: Array<ReaderThread | null>;
  private closed = false;

  constructor(
    private readonly env: Readonly<Record<string, string | undefined>>,
    size = 2,
  ) {
    this.slots = new Array<ReaderThread | null>(Math.max(1, size)).fill(null);
  }

  private slot(index: number): ReaderThread {
    const existing = this.slots[index];
    if (existing !== null && existing !== undefined && !existing.exited) return existing;
    if (this.closed) throw new HistoryError('STOPPED', 'the dashboard is stopping');
    const thread = new ReaderThread(this.env, `agent-bridge-dashboard-reader-${index}`);
    this.slots[index] = thread;
    return thread;
  }

  private leastBusy(): number {
    let best = 0;
    let load = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.slots.length; i++) {
      const thread = this.slots[i];
      const n = thread === null || thread === undefined ? 0 : thread.inFlight;
      if (n < load) {
        load = n;
        best = i;
      }
    }
    return best;
  }

  /**
   * Start every thread now, so that no request pays for a thread's start
   * (loading the reader module and opening the store take longer than most
   * searches).
   */
  warm(): void {
    for (let i = 0; i < this.slots.length; i++) this.slot(i);
  }

  /** `method` on the least busy thread. */
  async run<K extends ReaderMethod>(method: K, ...args: CallArgs<DashboardReaderApi[K]>): Promise<CallResult<DashboardReaderApi[K]>> {
    return this.slot(this.leastBusy()).call(method, ...args);
  }

  /** `method`'s value as JSON text (a response body), on the least busy thread. */
  async runJson<K extends ReaderMethod>(method: K, ...args: CallArgs<DashboardReaderApi[K]>): Promise<string> {
    return this.slot(this.leastBusy()).callJson(method, ...args);
  }

  /** The status object as JSON text, always from the first thread. */
  async statusJson(): Promise<string> {
    return this.slot(0).callJson('status');
  }

  /** The status object, always from the first thread. */
  async status(): Promise<unknown> {
    return this.slot(0).call('status');
  }

  async close(): Promise<void> {
    this.closed = true;
    const threads = this.slots.splice(0).filter((t): t is ReaderThread => t !== null);
    await Promise.all(threads.map((thread) => thread.stop()));
  }
}
