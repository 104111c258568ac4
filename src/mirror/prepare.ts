// Getting a project's replica ready to write, in the order that keeps every
// rule: the project folder must be this machine's real directory; for a Git
// project its exclusion is ensured before anything is created in it; the
// folder, the replica and its -wal/-shm/-journal must not be links; a file
// that is not a usable replica of this project is moved into the backup
// folder (never deleted) and the replica is built again.

import { lstatSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ensureExcluded, type Exclusion } from './git-exclude.ts';
import { checkAnchor, ensureFolder, linkAmong, lstatOrNull } from './links.ts';
import { BACKUPS, SIDECARS, type Placement, type ReplicaLocation } from './location.ts';
import { deferred, errorText, type MirrorProblem } from './problem.ts';
import { openReplicaWriter } from './replica-store.ts';
import { ReplicaWriter } from './replica-writer.ts';

export interface OpenReplica {
  readonly writer: ReplicaWriter;
  /** The replica file's inode when opened: another one later means the owner replaced or deleted it. */
  readonly ino: number;
  /** The file was created now (empty). */
  readonly created: boolean;
}

export interface OpenOptions {
  readonly fts: boolean;
  /** Move the existing file aside first (it was found damaged or foreign). */
  readonly backup?: string;
  readonly now?: () => number;
}

/** Move a replica (and its SQLite sidecars) into `<folder>/backups/`, keeping every byte. */
export function moveAside(location: ReplicaLocation, reason: string, now: () => number = Date.now): MirrorProblem | null {
  const backups = join(location.folder, BACKUPS);
  const problem = ensureFolder(backups, true);
  if (problem !== null) return problem;
  const stamp = new Date(now()).toISOString().replace(/[:.]/g, '-');
  for (const suffix of ['', ...SIDECARS]) {
    const from = `${location.replica}${suffix}`;
    if (lstatOrNull(from) === null) continue;
    try {
      renameSync(from, join(backups, `${basename(location.replica)}.${stamp}${suffix}`));
    } catch (error) {
      return deferred(from, `cannot move ${from} into ${backups} (${reason}): ${errorText(error)}`);
    }
  }
  return null;
}

/** The paths a replica's writes go to: its folder, the file and SQLite's files beside it. */
export function writtenPaths(location: ReplicaLocation): string[] {
  return [location.folder, location.replica, ...SIDECARS.map((s) => `${location.replica}${s}`)];
}

/** Open the replica in its (existing, checked) folder for writing. Synchronous: also used to reopen a closed one. */
export function openLocal(project: string, location: ReplicaLocation, options: OpenOptions): OpenReplica | MirrorProblem {
  const link = linkAmong(writtenPaths(location));
  if (link !== null) return link;
  const info = lstatOrNull(location.replica);
  if (info !== null && !info.isFile()) return deferred(location.replica, `${location.replica} exists but is not a regular file`);
  if (options.backup !== undefined) {
    const problem = moveAside(location, options.backup, options.now);
    if (problem !== null) return problem;
  }
  let opened = openReplicaWriter(location.replica, project, { fts: options.fts, now: (options.now ?? Date.now)() });
  if (!opened.ok && opened.kind === 'unusable') {
    const problem = moveAside(location, opened.reason, options.now);
    if (problem !== null) return problem;
    opened = openReplicaWriter(location.replica, project, { fts: options.fts, now: (options.now ?? Date.now)() });
  }
  if (!opened.ok) return deferred(location.replica, `${location.replica}: ${opened.reason}`);
  return { writer: new ReplicaWriter(opened.db), ino: lstatSync(location.replica).ino, created: opened.created };
}

export interface PrepareOptions extends OpenOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly git?: string;
}

export interface Prepared extends OpenReplica {
  /** How the project folder is kept out of Git (null for replicas in the bridge home). */
  readonly exclusion: Exclusion | null;
}

/** Everything before the first write, then open the replica. Git runs here (asynchronously). */
export async function prepareReplica(placement: Placement, project: string, location: ReplicaLocation, options: PrepareOptions): Promise<Prepared | MirrorProblem> {
  let exclusion: Exclusion | null = null;
  if (placement.kind === 'project') {
    const anchor = checkAnchor(project) ?? linkAmong(writtenPaths(location));
    if (anchor !== null) return anchor;
    const excluded = await ensureExcluded(project, { env: options.env, ...(options.git === undefined ? {} : { git: options.git }) });
    if ('reason' in excluded) return excluded;
    exclusion = excluded;
  } else if (lstatOrNull(location.base)?.isDirectory() !== true) {
    return deferred(location.base, `the bridge home ${location.base} is not a directory`);
  }
  const folder = ensureFolder(location.folder, true);
  if (folder !== null) return folder;
  const opened = openLocal(project, location, options);
  return 'reason' in opened ? opened : { ...opened, exclusion };
}
