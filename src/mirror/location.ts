// Where a project's replica lives (specification, "Project folder and
// settings" and "Custom bridge homes"):
//   - the physical default bridge home (~/.agent-bridge, compared by real
//     path) writes `<project root>/.agent-bridge/conversations-<hash>.db`;
//   - any other (custom) AGENT_BRIDGE_HOME writes every replica into
//     `<home>/project-mirrors/`, even when Git canonicalises a worktree to a
//     real main checkout, and writes nothing into projects or their Git data.
// <hash> is the first 16 hex digits of sha256 of the project key, the
// canonical project path capture assigns (src/project/canonical.ts).

import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { MirrorPlacement } from '../../protocols/mirror.ts';
import type { HistoryPaths } from '../config/paths.ts';

/** The folder a project's replica and settings live in, inside the project. */
export const PROJECT_FOLDER = '.agent-bridge';
/** A custom home's folder of replicas. */
export const HOME_MIRRORS = 'project-mirrors';
/** Beside the replicas: where a replica we cannot use is moved before it is rebuilt. */
export const BACKUPS = 'backups';
/** SQLite's files beside a database. */
export const SIDECARS = ['-wal', '-shm', '-journal'] as const;

export function projectHash(project: string): string {
  return createHash('sha256').update(project, 'utf8').digest('hex').slice(0, 16);
}

export function replicaName(project: string): string {
  return `conversations-${projectHash(project)}.db`;
}

function physical(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

/** Whether the bridge home is the user's default one, by real path (a symlink or AGENT_BRIDGE_HOME naming it counts). */
export function isPhysicalDefaultHome(paths: HistoryPaths): boolean {
  return physical(paths.bridgeHome) === physical(join(paths.home, '.agent-bridge'));
}

export interface Placement {
  readonly kind: MirrorPlacement;
  /** For `home`: the bridge home and its project-mirrors folder. */
  readonly home: string;
  readonly directory: string | null;
}

export function placementOf(paths: HistoryPaths): Placement {
  return isPhysicalDefaultHome(paths)
    ? { kind: 'project', home: paths.bridgeHome, directory: null }
    : { kind: 'home', home: paths.bridgeHome, directory: join(paths.bridgeHome, HOME_MIRRORS) };
}

export interface ReplicaLocation {
  /** The folder the replica is written in (created if missing). */
  readonly folder: string;
  /** The folder's parent, which must exist already: the project root, or the bridge home. */
  readonly base: string;
  readonly replica: string;
}

export function replicaLocation(placement: Placement, project: string): ReplicaLocation {
  const base = placement.kind === 'project' ? project : placement.home;
  const folder = join(base, placement.kind === 'project' ? PROJECT_FOLDER : HOME_MIRRORS);
  return { base, folder, replica: join(folder, replicaName(project)) };
}
