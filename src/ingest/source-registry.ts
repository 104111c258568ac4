// Every file source format, one module each, with the name front ends show
// for its roots. The bridge home's own files (run logs and metadata, approval
// requests, the context-events spool) are file sources too: they are
// append-only or write-once files, so they get generations, offsets, settled
// tails and pool parsing like transcripts.

import { bridgeApprovalSource, bridgeArchivedApprovalSource } from '../bridge/files/approvals.ts';
import { bridgeContextSource } from '../bridge/files/context-events.ts';
import { bridgeRunSource } from '../bridge/files/runs.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { claudeSource } from '../sources/claude.ts';
import { codexSource } from '../sources/codex.ts';
import type { DiscoveryRoot } from '../sources/discovery.ts';
import { opencodeJsonSource } from '../sources/opencode/legacy-json.ts';
import type { FileSourceModule } from '../sources/source-module.ts';

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

/** Every directory discovery walks for `paths`, in walking order. */
export function sourceRoots(paths: HistoryPaths): NamedRoot[] {
  return FILE_SOURCES.flatMap(({ name, module }) => module.roots(paths).map((root) => ({ name, root, module })));
}
