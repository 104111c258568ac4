// Matching a project filter against the projects the store knows. The
// filter has already been canonicalised (src/project/canonical.ts: a Git
// worktree or subfolder becomes the main checkout's root). What is left to
// do here is for paths that canonicalisation cannot resolve: recorded paths
// from another machine or a deleted checkout, and subfolders of a non-Git
// project. Those match the longest known project that is a path prefix.

import type { Db } from '../open.ts';
import type { Layout } from './layout.ts';
import { prepared } from '../statements.ts';

const WINDOWS_PATH = /^(?:[A-Za-z]:[\\/]|\\\\)/;

/** Comparison key of a project path: Windows paths case- and separator-insensitive, no trailing separator. */
export function projectKey(path: string): string {
  let key = path.trim();
  if (WINDOWS_PATH.test(key)) key = key.replaceAll('\\', '/').toLowerCase();
  while (key.length > 1 && key.endsWith('/') && !/^[a-z]:\/$/.test(key)) key = key.slice(0, -1);
  return key;
}

/** Every project path the store has recorded (conversations, memberships, legacy tags). */
export function knownProjects(db: Db, layout: Layout): string[] {
  const parts: string[] = [];
  if (layout.conversations) parts.push("SELECT DISTINCT project FROM conversations WHERE project <> ''");
  if (layout.projects) parts.push('SELECT project FROM conversation_projects');
  if (layout.memberships) parts.push('SELECT DISTINCT project FROM conversation_memberships');
  if (layout.tags) parts.push("SELECT DISTINCT value FROM history_tags WHERE type = 'project'");
  if (parts.length === 0) return [];
  return prepared(db, parts.join(' UNION ')).pluck().all() as string[];
}

/**
 * The known projects a filter names: those equal to one of `wanted` (by
 * key), else, per wanted path, all known projects sharing the longest key
 * that is a path prefix of it.
 */
export function matchProjects(known: readonly string[], wanted: readonly string[]): string[] {
  const byKey = new Map<string, string[]>();
  for (const project of known) {
    const key = projectKey(project);
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [project]);
    else list.push(project);
  }
  const out = new Set<string>();
  for (const path of wanted) {
    const key = projectKey(path);
    const exact = byKey.get(key);
    if (exact !== undefined) {
      for (const p of exact) out.add(p);
      continue;
    }
    let best: string | null = null;
    for (const candidate of byKey.keys()) {
      const prefix = candidate.endsWith('/') ? candidate : `${candidate}/`;
      if (key.startsWith(prefix) && (best === null || candidate.length > best.length)) best = candidate;
    }
    if (best !== null) for (const p of byKey.get(best) ?? []) out.add(p);
  }
  return [...out];
}
