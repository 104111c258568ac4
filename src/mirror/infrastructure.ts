// Plugin installation caches are infrastructure (specification, "Project
// folder and settings"): sessions that ran inside one (a plugin's own
// checkout) keep their history centrally and create no project replica in
// the cache. The caches:
//   Claude Code  <claude root>/plugins/   (cache/ and marketplaces/ clones)
//   Codex        <codex root>/plugins/    (cache/), <codex root>/.tmp/ (marketplace snapshots)
//   OpenCode     $XDG_CACHE_HOME/opencode or ~/.cache/opencode (installed npm plugins)

import { realpathSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { HistoryPaths } from '../config/paths.ts';

export function pluginCacheRoots(paths: HistoryPaths, env: Readonly<Record<string, string | undefined>>): string[] {
  const cache = env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '' ? resolve(env.XDG_CACHE_HOME) : join(paths.home, '.cache');
  const roots = [
    ...paths.claudeRoots.map((root) => join(root, 'plugins')),
    ...paths.codexRoots.flatMap((root) => [join(root, 'plugins'), join(root, '.tmp')]),
    join(cache, 'opencode'),
  ];
  // Projects are real paths: compare with each root's real path too.
  const out = new Set<string>();
  for (const root of roots) {
    out.add(root);
    try {
      out.add(realpathSync.native(root));
    } catch {
      // a cache that does not exist here cannot contain a real project path
    }
  }
  return [...out];
}

/** Whether a project path lies inside (or is) one of the plugin cache roots. */
export function isInfrastructure(project: string, roots: readonly string[]): boolean {
  return roots.some((root) => project === root || project.startsWith(root.endsWith(sep) ? root : `${root}${sep}`));
}
