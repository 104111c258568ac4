// The yield point between two migration chunks. Every chunk is one short
// synchronous transaction; between chunks the migration always yields to the
// event loop (messages such as status, pressure and stop get through), waits
// for its IO pace, and waits out broker pressure and the config switch
// (`history.ingest: false`). A pause that lasts while the bridge.db read view
// is pinned raises SourceReleased so the caller can release the view (the
// broker's WAL can then checkpoint) and resume later.

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
  /** A pause the gate looks up itself (config.json `history.ingest: false`), checked at every yield. */
  readonly switchedOff?: () => boolean;
  readonly now?: () => number;
}

export type GatePause = 'pressure' | 'config';

export class MigrationGate {
  private pressure = false;
  /** When the current pause (of either kind) began. */
  private pausedSince = 0;
  private stopped = false;
  private wake: (() => void) | null = null;
  private readonly now: () => number;
  /** Why the last gate call is waiting, when it is. */
  paused: GatePause | null = null;

  constructor(private readonly options: GateOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  setPressure(active: boolean): void {
    this.pressure = active;
    this.interrupt();
  }

  /** The reason to hold still now, if any. */
  private pause(): GatePause | null {
    if (this.pressure) return 'pressure';
    return this.options.switchedOff?.() === true ? 'config' : null;
  }

  /** Wait while paused; with `pinned`, a pause lasting releaseAfterMs throws SourceReleased. */
  private async holdStill(pinned: boolean): Promise<void> {
    for (let reason = this.pause(); reason !== null; reason = this.pause()) {
      if (this.paused === null) this.pausedSince = this.now();
      this.paused = reason;
      this.checkStop();
      if (pinned && this.now() - this.pausedSince >= this.options.releaseAfterMs) throw new SourceReleased();
      await this.sleep(this.options.pollMs);
    }
    this.paused = null;
    this.checkStop();
  }

  stop(): void {
    this.stopped = true;
    this.interrupt();
  }

  get stopping(): boolean {
    return this.stopped;
  }

  /** A stop or broker pressure arrived since the last yield: end the current unit after its chunk. */
  get interrupted(): boolean {
    return this.stopped || this.pressure;
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
   * Between chunks: yield, wait `delayMs` (the pace), then wait out pressure
   * or the config switch. With `pinned`, a pause lasting `releaseAfterMs`
   * throws SourceReleased.
   */
  async between(options: { pinned: boolean; delayMs: number }): Promise<void> {
    this.checkStop();
    await this.sleep(options.delayMs);
    await this.holdStill(options.pinned);
  }

  /** Wait until nothing holds the migration (after a release). */
  async calm(): Promise<void> {
    await this.holdStill(false);
  }
}
