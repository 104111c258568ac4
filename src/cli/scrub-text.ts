// How `status` tells what the scrubber has verified: from the running
// service when there is one, else from the progress kept in history.db.

import type { ScrubStatus } from '../../protocols/service.ts';
import type { ScrubProgress } from '../../protocols/history.ts';
import { formatBytes, formatTime } from './output.ts';

export function scrubLines(live: ScrubStatus | null, stored: ScrubProgress | null): string[] {
  const p = live ?? stored;
  if (p === null) return [];
  const lines: string[] = [];
  if (live !== null && live.bytesPerSecond === 0) lines.push('verify:  the scrubber is switched off (AGENT_BRIDGE_HISTORY_SCRUB_BYTES_PER_SECOND=0)');
  const last = p.lastSweep;
  if (p.sweeps === 0 || last === null || p.lastSweepAt === null) lines.push('verify:  no complete sweep yet: captured bytes are checked against the files while idle');
  else
    lines.push(
      `verify:  ${p.sweeps} sweeps; the last (${formatTime(p.lastSweepAt)}) found ${last.sources} files equal to their captured bytes (${formatBytes(last.bytes)}), ${last.mismatches} differed`,
    );
  const sweep = live?.sweep ?? (stored !== null && stored.sweepStartedAt !== null ? { sources: stored.sweepSources, bytes: stored.sweepBytes, mismatches: stored.sweepMismatches, of: null } : null);
  if (sweep !== null) lines.push(`         sweep in progress: ${sweep.sources}${sweep.of === null ? '' : ` of ${sweep.of}`} files verified (${formatBytes(sweep.bytes)}), ${sweep.mismatches} differed`);
  if (p.lastMismatch !== null) {
    lines.push(`         last difference: ${p.lastMismatch.path} generation ${p.lastMismatch.generation} at byte ${p.lastMismatch.offset} (${formatTime(p.lastMismatch.at)}); captured again as a new generation`);
  }
  return lines;
}
