// The yield point between two migration chunks. Every chunk is one short
// synchronous transaction; between chunks the migration always yields to the
// event loop (messages such as status, pressure and stop get through), waits
// for its IO pace, and waits out broker pressure. Pressure that lasts while
// the bridge.db read view is pinned raises SourceReleased so the caller can
// release the view (the broker's WAL can then checkpoint) and resume later.

import { setImmediate as yieldNow } from 'node:timers/promises';
import { HistoryError } from '../../protocols/errors.ts';

/** Sustained pressure while pinned: release the source view and resume later. */
export class SourceReleased extends Error {
  override readonly name = 'SourceReleased';
  constructor() {
    super('sustained pressure released the bridge.db read view');
  }
}

export interface GateOptions {
  readonly releaseAfterMs: number;
  readonly pollMs: number;
  readonly now?: () => number;
}

export class MigrationGate {
  private pressure = false;
  private pressureSince = 0;
  private stopped = false;
  private wake: (() => void) | null = null;
  private readonly now: () => number;
  /** The last gate call is waiting out pressure. */
  paused = false;

  constructor(private readonly options: GateOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  setPressure(active: boolean): void {
    if (active && !this.pressure) this.pressureSince = this.now();
    this.pressure = active;
    this.interrupt();
  }

  get underPressure(): boolean {
    return this.pressure;
  }

  stop(): void {
    this.stopped = true;
    this.interrupt();
  }

  get stopping(): boolean {
    return this.stopped;
  }

  private checkStop(): void {
    if (this.stopped) throw new HistoryError('STOPPED', 'the migration was stopped; its committed checkpoints are kept');
  }

  private interrupt(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Sleep `ms` (0: one event-loop turn), cut short by stop or a pressure change. */
  sleep(ms: number): Promise<void> {
    if (ms <= 0) return yieldNow();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /**
   * Between chunks: yield, wait `delayMs` (the pace), then wait while there is
   * pressure. With `pinned`, pressure lasting `releaseAfterMs` throws SourceReleased.
   */
  async between(options: { pinned: boolean; delayMs: number }): Promise<void> {
    this.checkStop();
    await this.sleep(options.delayMs);
    while (this.pressure) {
      this.paused = true;
      this.checkStop();
      if (options.pinned && this.now() - this.pressureSince >= this.options.releaseAfterMs) throw new SourceReleased();
      await this.sleep(this.options.pollMs);
    }
    this.paused = false;
    this.checkStop();
  }

  /** Wait until there is no pressure (after a release). */
  async calm(): Promise<void> {
    while (this.pressure) {
      this.paused = true;
      this.checkStop();
      await this.sleep(this.options.pollMs);
    }
    this.paused = false;
    this.checkStop();
  }
}
