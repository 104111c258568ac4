// Discovery actor: owns the streamed walker over the source roots, the
// header cache and the file watch. It finds and classifies files; it never
// registers them (the scheduler does, through the history actor).

import { lstat } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import type { HistoryPaths } from '../src/config/paths.ts';
import type { Limits } from '../src/config/limits.ts';
import { claudeSource } from '../src/sources/claude.ts';
import { codexSource } from '../src/sources/codex.ts';
import { opencodeJsonSource } from '../src/sources/opencode/legacy-json.ts';
import { bridgeApprovalSource, bridgeArchivedApprovalSource } from '../src/bridge/files/approvals.ts';
import { bridgeContextSource } from '../src/bridge/files/context-events.ts';
import { bridgeRunSource } from '../src/bridge/files/runs.ts';
import type { DiscoveryRoot, Found, StepResult } from '../src/sources/discovery.ts';
import { DiscoveryWalker } from '../src/sources/discovery.ts';
import { HeaderCache } from '../src/sources/header.ts';
import type { FileSourceModule } from '../src/sources/source-module.ts';
import type { SourcePlan } from '../protocols/sources.ts';
import { SourceWatch } from '../src/sources/watch.ts';
import type { DiscoveryPort } from '../src/ingest/scheduler.ts';

/**
 * Every file source format, one module each. The bridge home's own files
 * (run logs and metadata, approval requests, the context-events spool) are
 * file sources too: they are append-only or write-once files, so they get
 * generations, offsets, settled tails and pool parsing like transcripts.
 */
export const FILE_SOURCES: readonly FileSourceModule[] = [
  claudeSource,
  codexSource,
  opencodeJsonSource,
  bridgeRunSource,
  bridgeApprovalSource,
  bridgeArchivedApprovalSource,
  bridgeContextSource,
];

export class DiscoveryActor implements DiscoveryPort {
  readonly name = 'discovery';
  private readonly roots: DiscoveryRoot[];
  private readonly walker: DiscoveryWalker;
  private readonly headers: HeaderCache;
  private readonly watcher: SourceWatch;

  constructor(paths: HistoryPaths, limits: Limits, onChange: (path: string) => void) {
    this.roots = FILE_SOURCES.flatMap((module) => module.roots(paths).map((root) => ({ root, module })));
    this.walker = new DiscoveryWalker(this.roots, limits.discoveryStepEntries);
    this.headers = new HeaderCache(limits.headerCacheEntries);
    this.watcher = new SourceWatch(this.roots.map((r) => r.root), onChange);
  }

  get passes(): number {
    return this.walker.passes;
  }

  get refusedLinks(): number {
    return this.walker.refusedLinks;
  }

  get watchState(): { state: string; problem: string | null } {
    return { state: this.watcher.state, problem: this.watcher.problem };
  }

  step(): Promise<StepResult> {
    return this.walker.step();
  }

  async locate(path: string): Promise<Found | null> {
    for (const { root, module } of this.roots) {
      const rel = relative(root, path);
      if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) continue;
      try {
        const stat = await lstat(path);
        if (!stat.isFile()) return null;
      } catch {
        return null;
      }
      return { path, relative: rel.split(sep), module };
    }
    return null;
  }

  classify(found: Found): Promise<SourcePlan | null> {
    return found.module.classify(found, () => this.headers.read(found.path));
  }

  watch(): void {
    this.watcher.start();
  }

  async stop(): Promise<void> {
    await this.watcher.close();
    await this.walker.close();
  }
}
