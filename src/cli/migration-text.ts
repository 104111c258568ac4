// How the CLI shows migration progress: one line (with a progress bar on a
// TTY) plus a hint when a failure is latched. Shared by `status` and
// `reindex --retry`.

import type { MigrationProgress } from '../../protocols/migration.ts';
import { formatBytes } from './output.ts';

const BAR_WIDTH = 24;

export function progressBar(percent: number, width = BAR_WIDTH): string {
  const filled = Math.max(0, Math.min(width, Math.round((percent / 100) * width)));
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.round(seconds))}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

export const RETRY_HINT = 'resolve the cause, then run `agent-bridge reindex --retry` (both databases and the snapshot are kept)';

/** Lines describing the migration (the first starts with "migration:"). */
export function migrationLines(p: MigrationProgress, options: { tty: boolean; live?: boolean }): string[] {
  if (p.phase === 'verified') return [`migration: verified${p.tail.replayed > 0 ? ` (${p.tail.replayed} legacy tail records replayed)` : ''}`];
  if (p.phase === 'failed') return [`migration: failed: ${p.error?.message ?? 'unknown error'}`, `           ${RETRY_HINT}`];
  if (p.phase === 'starting' && p.pass === null) return ['migration: not started (runs in the history service before ingestion)'];
  const where = p.phase === 'paused' ? `paused (${p.pausedBy ?? 'pressure'}) in ${p.pass ?? 'migration'}` : p.phase;
  const parts = [`${where} ${p.percent.toFixed(1)}%`];
  if (options.tty) parts.push(progressBar(p.percent));
  parts.push(`${p.rowsDone}/${p.rowsTotal} rows`);
  if (p.ioBytesPerSecond > 0 || p.ioLimitBytesPerSecond !== null) {
    const limit = p.ioLimitBytesPerSecond === null ? 'unpaced' : `limit ${formatBytes(p.ioLimitBytesPerSecond)}/s`;
    parts.push(`${formatBytes(p.ioBytesPerSecond)}/s (${limit})`);
  }
  if (p.etaSeconds !== null) parts.push(`ETA ${formatDuration(p.etaSeconds)}`);
  const lines = [`migration: ${parts.join(', ')}`];
  if (options.live === false) lines.push('           not running now: it resumes from its checkpoints when the history service starts');
  if (p.sourceReleased) lines.push('           bridge.db read view released under pressure; the snapshot resumes with the same file');
  if (p.error !== null) lines.push(`           last error: ${p.error.code}: ${p.error.message}`);
  return lines;
}
