// How the CLI shows capture progress (status, health, serve, ingest --once):
// one line with the backlog's percentage (a bar on a TTY), bytes captured of
// bytes found, rate and ETA.

import type { CaptureProgress } from '../../protocols/capture.ts';
import { formatDuration, progressBar } from './migration-text.ts';
import { formatBytes } from './output.ts';

export interface Backlog {
  readonly sources: number;
  readonly bytes: number;
}

/** "34.5% [#####---] 12.0 MiB of 34.8 MiB, 1.7 MiB/s, ETA 13s", or "caught up". */
export function captureProgressText(capture: CaptureProgress, backlog: Backlog, options: { tty: boolean }): string {
  if (capture.since === null) return capture.discovering ? 'caught up (discovery is walking the roots)' : 'caught up';
  const parts: string[] = [];
  const bytes = `${formatBytes(capture.capturedBytes)} of ${formatBytes(capture.foundBytes)}${capture.discovering ? ' found so far' : ''}`;
  if (capture.percent === null) parts.push(bytes);
  else parts.push(options.tty ? `${capture.percent.toFixed(1)}% ${progressBar(capture.percent)} ${bytes}` : `${capture.percent.toFixed(1)}%, ${bytes}`);
  if (capture.bytesPerSecond > 0) parts.push(`${formatBytes(capture.bytesPerSecond)}/s`);
  parts.push(capture.etaSeconds === null ? 'ETA unknown yet' : `ETA ${formatDuration(capture.etaSeconds)}`);
  const waiting = `${backlog.sources} source${backlog.sources === 1 ? '' : 's'} waiting`;
  return `${parts.join(', ')} (${waiting})`;
}
