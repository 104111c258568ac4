// `agent-bridge health [--json]`: the cached status object (protocols/health.ts)
// that the dashboard's /api/status returns: service, capture progress,
// migration, mirrors, batch latency and last errors. Cheap enough to poll
// every second: it reads what the running service publishes.

import type { HealthStatus } from '../../../protocols/health.ts';
import { resolvePaths } from '../../config/paths.ts';
import { healthStatus } from '../../status/health.ts';
import { parse } from '../args.ts';
import { captureProgressText } from '../capture-text.ts';
import { formatDuration, migrationLines } from '../migration-text.ts';
import { emptyProgress } from '../../migration/progress-object.ts';
import { formatBytes, isTty, printJson } from '../output.ts';

export async function health(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  const report = healthStatus(resolvePaths());
  if (flags.json === true) printJson(report);
  else process.stdout.write(`${healthLines(report, isTty()).join('\n')}\n`);
  return 0;
}

function serviceLine(h: HealthStatus): string {
  const s = h.service;
  const what = [s.pid === null ? null : `pid ${s.pid}`, s.mode, s.pace === null ? null : `pace ${s.pace}`].filter((x) => x !== null).join(', ');
  const age = s.ageMs === null ? '' : `, status ${formatDuration(s.ageMs / 1000)} old`;
  switch (s.state) {
    case 'running':
      return `service:   running (${what})${age}`;
    case 'starting':
      return `service:   starting (${what}); no status published yet`;
    case 'stale':
      return `service:   stale (${what})${age}: the writer is alive but has not published its status lately`;
    case 'disabled':
      return 'service:   disabled by AGENT_BRIDGE_HISTORY_INGEST';
    case 'stopped':
      return 'service:   not running (start it with `agent-bridge serve`, or the broker does)';
  }
}

export function healthLines(h: HealthStatus, tty: boolean): string[] {
  const lines = [serviceLine(h)];
  const c = h.capture;
  if (c.phase !== 'stopped') {
    const paused = c.pausedBy.length > 0 ? ` (paused: ${c.pausedBy.join(', ')})` : '';
    lines.push(`capture:   ${c.phase}${paused}: ${captureProgressText(c, c.backlog, { tty })}`);
  }
  const m = h.migration;
  if (m.phase === 'none') lines.push('migration: nothing to migrate');
  else {
    // The CLI's migration text takes the full progress object; health carries the figures it shows.
    const progress = emptyProgress(m.phase, { ...m, phase: m.phase, error: m.failure });
    lines.push(...migrationLines(progress, { tty, live: m.live }));
  }
  const mirrors = h.mirrors;
  const replicas = mirrors.projects === 0 ? '' : `; ${mirrors.synced} of ${mirrors.projects} projects synced${mirrors.held > 0 ? `, ${mirrors.held} held back` : ''}${mirrors.recordsBehind > 0 ? `, ${mirrors.recordsBehind} records to copy` : ''}`;
  lines.push(`mirrors:   ${mirrors.phase}${mirrors.detail === null ? '' : ` (${mirrors.detail})`}${replicas}${mirrors.lastError === null ? '' : `; error: ${mirrors.lastError}`}`);
  if (h.batches.committed > 0) lines.push(`batches:   ${h.batches.committed} committed, p50 ${h.batches.p50Ms.toFixed(1)} ms, p99 ${h.batches.p99Ms.toFixed(1)} ms`);
  if (h.store !== null) {
    lines.push(`store:     ${h.store.sources} sources, ${h.store.conversations} conversations, ${h.store.records} records (${formatBytes(h.store.rawBytes)}), ${h.store.documents} documents`);
  }
  if (h.errorCount === 0) lines.push('errors:    none');
  for (const e of h.errors) lines.push(`error:     ${e.origin}: ${e.code}: ${e.message}`);
  if (h.errorCount > h.errors.length) lines.push(`           … and ${h.errorCount - h.errors.length} more (see --json or agent-bridge status)`);
  return lines;
}
