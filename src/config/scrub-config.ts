// The scrubber's pace and sweep interval: LIMITS, unless the environment says
//   AGENT_BRIDGE_HISTORY_SCRUB_BYTES_PER_SECOND  0 (off), or 64 KiB/s .. 256 MiB/s
//   AGENT_BRIDGE_HISTORY_SCRUB_INTERVAL_SECONDS  0 .. 604800 (a week)
// A value outside those is a CONFIG_INVALID error naming the variable.

import { HistoryError } from '../../protocols/errors.ts';
import { LIMITS, SCRUB_RATE_RANGE } from './limits.ts';

export const SCRUB_RATE_ENV = 'AGENT_BRIDGE_HISTORY_SCRUB_BYTES_PER_SECOND';
export const SCRUB_INTERVAL_ENV = 'AGENT_BRIDGE_HISTORY_SCRUB_INTERVAL_SECONDS';

export interface ScrubConfig {
  readonly bytesPerSecond: number;
  readonly sweepIntervalMs: number;
}

function whole(env: Readonly<Record<string, string | undefined>>, name: string, ok: (n: number) => boolean, range: string): number | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return null;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || !ok(value)) {
    throw new HistoryError('CONFIG_INVALID', `${name} must be a whole number ${range}, got "${raw}"`);
  }
  return value;
}

export function scrubConfig(env: Readonly<Record<string, string | undefined>>): ScrubConfig {
  const rate = whole(env, SCRUB_RATE_ENV, (n) => n === 0 || (n >= SCRUB_RATE_RANGE.min && n <= SCRUB_RATE_RANGE.max), `of bytes per second: 0 (off) or ${SCRUB_RATE_RANGE.min} to ${SCRUB_RATE_RANGE.max}`);
  const interval = whole(env, SCRUB_INTERVAL_ENV, (n) => n <= 7 * 24 * 3600, 'of seconds from 0 to 604800');
  return {
    bytesPerSecond: rate ?? LIMITS.scrubBytesPerSecond,
    sweepIntervalMs: interval === null ? LIMITS.scrubSweepIntervalMs : interval * 1000,
  };
}
