// The mirrors of a home as they are on disk, for `agent-bridge mirrors`
// when no service runs: every project with its replica path, what the
// replica holds against the central store, and the deferral or refusal the
// next sync would meet. Only reads: Git is asked where the exclude file is
// and whether it is writable, nothing is created or appended.

import type { MirrorStatus, ProjectMirrorStatus } from '../../protocols/mirror.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { openReader, type Db } from '../store/open.ts';
import { CentralView } from './central.ts';
import { ensureExcluded } from './git-exclude.ts';
import { isInfrastructure, pluginCacheRoots } from './infrastructure.ts';
import { checkAnchor, linkAmong, lstatOrNull } from './links.ts';
import { placementOf, replicaLocation, type Placement } from './location.ts';
import { writtenPaths } from './prepare.ts';
import { openReplicaReader } from './replica-store.ts';

function centralRecords(db: Db, project: string): number {
  return db
    .prepare(
      `SELECT count(*) FROM conversation_records WHERE conversation IN
         (SELECT id FROM conversations WHERE project = @project UNION SELECT conversation FROM conversation_memberships WHERE project = @project)`,
    )
    .pluck()
    .get({ project }) as number;
}

async function inspectProject(db: Db, placement: Placement, project: string, env: Readonly<Record<string, string | undefined>>): Promise<ProjectMirrorStatus> {
  const location = replicaLocation(placement, project);
  const base = { project, replica: location.replica, conversations: 0, records: 0, behind: null, syncedAt: null } as const;
  let problem = (placement.kind === 'project' ? checkAnchor(project) : null) ?? linkAmong(writtenPaths(location));
  if (problem === null && placement.kind === 'project') {
    const excluded = await ensureExcluded(project, { env, dryRun: true });
    if ('reason' in excluded) problem = excluded;
  }
  if (problem !== null) return { ...base, state: problem.state, reason: problem.reason, path: problem.path };
  const central = centralRecords(db, project);
  if (lstatOrNull(location.replica) === null) {
    return { ...base, state: 'pending', reason: 'not built yet: the next `agent-bridge serve` or `ingest --once` builds it', path: null, behind: central };
  }
  let replica: Db;
  try {
    replica = openReplicaReader(location.replica);
  } catch (error) {
    return { ...base, state: 'pending', reason: `the next sync moves it to the backup folder and rebuilds it: ${(error as Error).message}`, path: location.replica };
  }
  try {
    const records = replica.prepare('SELECT count(*) FROM conversation_records').pluck().get() as number;
    const conversations = replica.prepare('SELECT count(*) FROM conversations').pluck().get() as number;
    const behind = Math.max(0, central - records);
    return { ...base, state: behind === 0 ? 'synced' : 'syncing', reason: null, path: null, records, conversations, behind };
  } finally {
    replica.close();
  }
}

export async function inspectMirrors(paths: HistoryPaths, env: Readonly<Record<string, string | undefined>>): Promise<MirrorStatus> {
  const placement = placementOf(paths);
  const db = openReader(paths.historyDb);
  const projects: ProjectMirrorStatus[] = [];
  let infrastructure = 0;
  if (db !== null) {
    try {
      const view = new CentralView(db);
      const roots = pluginCacheRoots(paths, env);
      for (let after = '', page = view.projectsAfter('', 256); page.length > 0; after = page.at(-1) as string, page = view.projectsAfter(after, 256)) {
        for (const project of page) {
          if (isInfrastructure(project, roots)) infrastructure++;
          else projects.push(await inspectProject(db, placement, project, env));
        }
      }
    } finally {
      db.close();
    }
  }
  return {
    phase: 'off',
    detail: 'no history service is running: read from disk',
    placement: placement.kind,
    directory: placement.directory,
    projects,
    infrastructure,
    steps: { count: 0, p50Ms: 0, p99Ms: 0, records: 0 },
    lastError: null,
  };
}
