// Time arguments of read commands (--since, --until): a relative age (`7d`,
// `12h`, `30m`, `45s`, `2w`: that long before now), a calendar date
// (`2026-11-01`: local midnight), an ISO-8601 date-time with offset, or
// epoch milliseconds.

import { parseIsoInstant } from '../../protocols/search.ts';
import { UsageError } from './args.ts';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseTimeFlag(value: string | undefined, name: string, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const relative = /^(\d+)\s*([smhdw])$/i.exec(text);
  if (relative !== null) return now - Number(relative[1]) * (UNIT_MS[(relative[2] as string).toLowerCase()] as number);
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (date !== null) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const ms = new Date(year, month - 1, day).getTime();
    if (month >= 1 && month <= 12 && day >= 1 && day <= 31 && new Date(ms).getDate() === day) return ms;
  } else if (/^\d+$/.test(text)) {
    const ms = Number(text);
    if (Number.isSafeInteger(ms)) return ms;
  } else {
    const ms = parseIsoInstant(text);
    if (ms !== null) return ms;
  }
  throw new UsageError(
    `--${name} must be an age (7d, 12h, 30m), a date (2026-11-01), an ISO-8601 date-time with offset (2026-11-01T09:30:00Z) or epoch milliseconds, got "${value}"`,
  );
}

/** A duration argument (`30s`, `5m`, `1h`) in milliseconds, at least `minMs`. */
export function parseDurationFlag(value: string | undefined, name: string, minMs = 1000): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\s*([smhdw])$/i.exec(value.trim());
  const ms = match === null ? Number.NaN : Number(match[1]) * (UNIT_MS[(match[2] as string).toLowerCase()] as number);
  if (!(ms >= minMs)) throw new UsageError(`--${name} must be a duration of at least ${minMs / 1000}s (30s, 5m, 1h), got "${value}"`);
  return ms;
}
