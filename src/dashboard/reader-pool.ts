// A small pool of reader threads (actors/reader-worker.ts) for the
// dashboard: each call goes to the thread with the fewest calls in flight,
// so one slow query occupies one thread and the other requests keep being
// answered. A thread that exits is replaced on the next call; its pending
// calls fail with STOPPED instead of waiting forever. Status is always built
// by the first thread (it keeps the samples its capture rate comes from).

import { wrap, type Remote } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { Worker } from 'node:worker_threads';
import type { DashboardReaderApi } from '../../protocols/dashboard.ts';
import { HistoryError } from '../../protocols/errors.ts';
import { spawnThread, unwrap } from '../service/threads.ts';

interface Slot {
  readonly worker: Worker;
  readonly api: Remote<DashboardReaderApi>;
  readonly ready: Promise<void>;
  readonly exited: Promise<never>;
  inFlight: number;
}

export type ReaderCall<T> = (api: Remote<DashboardReaderApi>) => Promise<T>;

export class ReaderPool {
  private readonly slots: Array<Slot | null>;
  private closed = false;

  constructor(
    private readonly env: Readonly<Record<string, string | undefined>>,
    size = 2,
  ) {
    this.slots = new Array<Slot | null>(Math.max(1, size)).fill(null);
  }

  private slot(index: number): Slot {
    const existing = this.slots[index];
    if (existing !== null && existing !== undefined) return existing;
    if (this.closed) throw new HistoryError('STOPPED', 'the dashboard is stopping');
    const worker = spawnThread('actors/reader-worker.ts', `agent-bridge-dashboard-reader-${index}`);
    const api = wrap<DashboardReaderApi>(nodeEndpoint(worker as never));
    let onExit: (code: number) => void = () => undefined;
    const exited = new Promise<never>((_resolve, reject) => {
      onExit = (code) => reject(new HistoryError('STOPPED', `a dashboard reader thread exited with code ${code}`));
    });
    exited.catch(() => undefined);
    const slot: Slot = { worker, api, exited, ready: unwrap(api.start({ env: this.env })), inFlight: 0 };
    slot.ready.catch(() => undefined);
    worker.on('error', () => undefined);
    worker.on('exit', (code) => {
      onExit(code);
      if (this.slots[index] === slot) this.slots[index] = null;
    });
    this.slots[index] = slot;
    return slot;
  }

  private leastBusy(): number {
    let best = 0;
    let load = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i];
      const n = slot === null || slot === undefined ? 0 : slot.inFlight;
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

  /** Run `call` on the least busy thread (or on thread `pin`). */
  async run<T>(call: ReaderCall<T>, pin?: number): Promise<T> {
    const slot = this.slot(pin ?? this.leastBusy());
    slot.inFlight++;
    try {
      return await Promise.race([slot.exited, slot.ready.then(() => unwrap(call(slot.api)))]);
    } finally {
      slot.inFlight--;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0).filter((s): s is Slot => s !== null);
    await Promise.all(
      slots.map(async (slot) => {
        try {
          await Promise.race([slot.exited, slot.api.stop(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
        } catch {
          // a thread that is already gone has nothing to close
        } finally {
          await slot.worker.terminate();
        }
      }),
    );
  }
}
