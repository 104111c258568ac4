// The migration IO pace: AGENT_BRIDGE_HISTORY_MIGRATION_IO_BYTES_PER_SECOND
// (environment, wins), else config.json `history.migration.ioBytesPerSecond`,
// else 8 MiB/s. Both accept whole bytes per second in 64 KiB/s .. 256 MiB/s.
// Pace `max` (ingest --pace max, benchmarks) runs the migration unpaced.

import { HistoryError } from '../../protocols/errors.ts';
import type { Pace } from '../../protocols/service.ts';
import { LIMITS, MIGRATION_IO_RANGE } from '../config/limits.ts';
import type { HistorySettings } from '../config/settings.ts';
import { MIGRATION_IO_ENV } from '../config/settings-fields.ts';

export const IO_RATE_ENV = MIGRATION_IO_ENV;

/** The environment override, validated; null when unset. Throws CONFIG_INVALID with the reason. */
export function ioRateFromEnv(env: Readonly<Record<string, string | undefined>>): number | null {
  const raw = env[IO_RATE_ENV];
  if (raw === undefined || raw.trim() === '') return null;
  const text = raw.trim();
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < MIGRATION_IO_RANGE.min || value > MIGRATION_IO_RANGE.max) {
    throw new HistoryError(
      'CONFIG_INVALID',
      `${IO_RATE_ENV} must be a whole number of bytes per second between ${MIGRATION_IO_RANGE.min} and ${MIGRATION_IO_RANGE.max}, got "${raw}"`,
    );
  }
  return value;
}

/**
 * A function giving the pace for the next chunk (null: unpaced). The
 * environment is read once (validated now); config.json is consulted per
 * chunk through `settings`, so editing it applies without a restart.
 */
export function migrationRate(options: {
  readonly pace: Pace;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly settings: () => HistorySettings;
  readonly fallback?: number;
}): () => number | null {
  if (options.pace === 'max') return () => null;
  const fromEnv = ioRateFromEnv(options.env);
  if (fromEnv !== null) return () => fromEnv;
  const fallback = options.fallback ?? LIMITS.migrationIoBytesPerSecond;
  return () => options.settings().migrationIoBytesPerSecond ?? fallback;
}
