// Discovery actor: owns the streamed walker over the source roots, the
// header cache and the file watch. It finds and classifies files; it never
// registers them (the scheduler does, through the history actor).

import { lstat } from 'node:fs/promises';
import type { HistoryPaths } from '../src/config/paths.ts';
import type { Limits } from '../src/config/limits.ts';
import type { DiscoveryRoot, Found, StepResult } from '../src/sources/discovery.ts';
import { DiscoveryWalker } from '../src/sources/discovery.ts';
import { fileSourceRoots, underRoots } from '../src/sources/file-modules.ts';
import { HeaderCache } from '../src/sources/header.ts';
import type { SourcePlan } from '../protocols/sources.ts';
import { SourceWatch } from '../src/sources/watch.ts';
import type { DiscoveryPort } from '../src/ingest/scheduler.ts';
import type { SourceProblem } from '../protocols/service.ts';
import { fsPath, isBytesPath } from '../src/os/byte-paths.ts';

export class DiscoveryActor implements DiscoveryPort {
  readonly name = 'discovery';
  private readonly roots: DiscoveryRoot[];
  private readonly walker: DiscoveryWalker;
  private readonly headers: HeaderCache;
  private readonly watcher: SourceWatch;

  constructor(paths: HistoryPaths, limits: Limits, mode: 'serve' | 'once', onChange: (path: string) => void) {
    this.roots = fileSourceRoots(paths);
    // A serve run walks again every 30 s: it keeps folder listings so that its background passes replay unchanged folders.
    this.walker = new DiscoveryWalker(this.roots, limits.discoveryStepEntries, { keepListings: mode === 'serve' });
    this.headers = new HeaderCache(limits.headerCacheEntries);
    // A root in the exact bytes: form cannot be watched (chokidar names files by lossy strings): polling covers it.
    this.watcher = new SourceWatch(this.roots.map((r) => r.root).filter((root) => !isBytesPath(root)), onChange);
  }

  get passes(): number {
    return this.walker.passes;
  }

  get refusedLinks(): number {
    return this.walker.refusedLinks;
  }

  get rootPaths(): readonly string[] {
    return this.roots.map((r) => r.root);
  }

  get skipped(): readonly SourceProblem[] {
    return this.walker.skipped;
  }

  get skippedCount(): number {
    return this.walker.skippedCount;
  }

  get watchState(): { state: string; problem: string | null } {
    return { state: this.watcher.state, problem: this.watcher.problem };
  }

  async step(background: boolean): Promise<StepResult> {
    const result = await this.walker.step(background);
    if (result.passComplete) this.watcher.refresh();
    return result;
  }

  async locate(path: string): Promise<Found | null> {
    const found = underRoots(this.roots, path);
    if (found === null) return null;
    try {
      return (await lstat(fsPath(path))).isFile() ? found : null;
    } catch {
      return null;
    }
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
