// Every file source format, one module each. The bridge home's own files
// (run logs and metadata, approval requests, the context-events spool) are
// file sources too: they are append-only or write-once files, so they get
// generations, offsets, settled tails and pool parsing like transcripts.
// Discovery walks their roots; recovery classifies a retained source whose
// row was lost with the same modules.

import { relative, sep } from 'node:path';
import { bridgeApprovalSource, bridgeArchivedApprovalSource } from '../bridge/files/approvals.ts';
import { bridgeContextSource } from '../bridge/files/context-events.ts';
import { bridgeRunSource } from '../bridge/files/runs.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { claudeSource } from './claude.ts';
import { codexSource } from './codex.ts';
import type { DiscoveryRoot, Found } from './discovery.ts';
import { opencodeJsonSource } from './opencode/legacy-json.ts';
import type { FileSourceModule } from './source-module.ts';

export interface NamedSource {
  /** What users see: "claude", "codex", "opencode (JSON store)", "bridge runs" ... */
  readonly name: string;
  readonly module: FileSourceModule;
}

export const FILE_SOURCES: readonly NamedSource[] = [
  { name: 'claude', module: claudeSource },
  { name: 'codex', module: codexSource },
  { name: 'opencode (JSON store)', module: opencodeJsonSource },
  { name: 'bridge runs', module: bridgeRunSource },
  { name: 'bridge approvals', module: bridgeApprovalSource },
  { name: 'bridge archive', module: bridgeArchivedApprovalSource },
  { name: 'bridge context events', module: bridgeContextSource },
];

export interface NamedRoot extends DiscoveryRoot {
  readonly name: string;
}

/** Every root discovery walks, in walking order, with the module that classifies what is below it. */
export function fileSourceRoots(paths: HistoryPaths): NamedRoot[] {
  return FILE_SOURCES.flatMap(({ name, module }) => module.roots(paths).map((root) => ({ name, root, module })));
}

/** The root and module `path` lies below (by its name only; the file need not exist), or null. */
export function underRoots(roots: readonly DiscoveryRoot[], path: string): Found | null {
  for (const { root, module } of roots) {
    const rel = relative(root, path);
    if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) continue;
    return { path, relative: rel.split(sep), module };
  }
  return null;
}
