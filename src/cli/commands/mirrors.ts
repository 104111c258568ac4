// `agent-bridge mirrors [--json]`: every project with its replica path, state
// (synced, syncing, pending, deferred, refused, with the reason), what the
// replica holds and how far it is behind. From the running service's live
// status when there is one, else read from disk (src/mirror/inspect.ts).

import type { MirrorStatus, ProjectMirrorStatus } from '../../../protocols/mirror.ts';
import { resolvePaths } from '../../config/paths.ts';
import { inspectMirrors } from '../../mirror/inspect.ts';
import { readStatusFile } from '../../store/status-file.ts';
import { WriterLock } from '../../store/writer-lock.ts';
import { parse } from '../args.ts';
import { formatTime, printJson } from '../output.ts';

export interface MirrorsReport extends MirrorStatus {
  /** Whether the states come from the running service (else from disk). */
  readonly live: boolean;
}

function line(p: ProjectMirrorStatus): string[] {
  const behind = p.behind === null || p.behind === 0 ? '' : `, ${p.behind} behind`;
  const synced = p.syncedAt === null ? '' : `, synced ${formatTime(p.syncedAt)}`;
  const out = [`${p.state.padEnd(8)}  ${p.project}`, `          ${p.replica}  (${p.conversations} conversations, ${p.records} records${behind}${synced})`];
  if (p.reason !== null) out.push(`          ${p.reason}`);
  return out;
}

export async function mirrors(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  const paths = resolvePaths();
  const owner = WriterLock.liveOwner(paths.writerLock);
  const published = readStatusFile(paths);
  const live = published !== null && owner !== null && published.writer.pid === owner.pid && published.mirror?.placement !== undefined && published.mirror.placement !== null;
  const status: MirrorStatus = live ? published.mirror : await inspectMirrors(paths, process.env);
  const report: MirrorsReport = { ...status, live };
  if (flags.json === true) {
    printJson(report);
    return 0;
  }
  const where = status.placement === 'home' ? `replicas in ${status.directory}` : 'replicas in each project folder (.agent-bridge/)';
  const lines = [`mirrors: ${status.phase}${status.detail === undefined ? '' : ` (${status.detail})`}; ${where}`];
  for (const project of status.projects) lines.push(...line(project));
  if (status.projects.length === 0) lines.push('no project has conversations yet');
  if (status.infrastructure > 0) lines.push(`${status.infrastructure} plugin installation cache project(s) stay central (no replica)`);
  if (status.lastError !== null) lines.push(`error: ${status.lastError}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
