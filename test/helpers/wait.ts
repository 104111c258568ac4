// Waiting for a live service, process or watcher to reach a state, seen from
// outside: probe, sleep, probe again, until a deadline.

import { setTimeout as sleep } from 'node:timers/promises';

/** What a probe returns: null, undefined or false while the state is not reached yet. */
export type Probed<T> = T | null | undefined | false;

export interface WaitOptions {
  /** Give up after this long (default 30 s). */
  readonly ms?: number;
  /** The pause between two probes (default 100 ms). */
  readonly everyMs?: number;
}

/**
 * Probe until the probe returns something other than null, undefined or
 * false, and return that. On the deadline, throw naming `what`; a function
 * is read then, so the message can show the latest state it saw.
 */
export async function waitFor<T>(what: string | (() => string), probe: () => Probed<T> | Promise<Probed<T>>, options: WaitOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.ms ?? 30_000);
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(options.everyMs ?? 100);
  }
}
