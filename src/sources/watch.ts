// Change notifications for the source roots (chokidar). A notification only
// moves a file to the front of the queue; it is never the only way a change
// is seen: bounded polling of registered files is the portable fallback, so
// a watch that fails (inotify limits, network file systems) degrades to
// polling and is reported in status, nothing more.
//
// Only roots that exist are watched. chokidar watches a missing path through
// its parent folder, and the parent of a missing bridge root is the bridge
// home, where the status file is replaced every few seconds: each
// replacement would make it read that folder again. A root that appears
// later is found by the next discovery pass, which then watches it
// (refresh).

import { existsSync } from 'node:fs';
import { watch, type FSWatcher } from 'chokidar';

export type WatchState = 'off' | 'starting' | 'ready' | 'degraded';

const CAPTURED = /\.(jsonl|txt|json|zst)$/;

export class SourceWatch {
  private watcher: FSWatcher | null = null;
  private readonly watched = new Set<string>();
  state: WatchState = 'off';
  problem: string | null = null;

  constructor(
    private readonly roots: readonly string[],
    private readonly onChange: (path: string) => void,
  ) {}

  /** The roots watched now (those that existed at start or at a refresh). */
  get watchedRoots(): readonly string[] {
    return [...this.watched];
  }

  start(): void {
    if (this.watcher !== null || this.roots.length === 0) return;
    this.state = 'starting';
    const present = this.roots.filter((root) => existsSync(root));
    for (const root of present) this.watched.add(root);
    const watcher = watch(present, {
      ignoreInitial: true,
      followSymlinks: false,
      persistent: false,
      ignored: (path, stats) => stats?.isFile() === true && !CAPTURED.test(path),
    });
    watcher.on('add', (path) => this.onChange(path));
    watcher.on('change', (path) => this.onChange(path));
    watcher.on('ready', () => {
      if (this.state === 'starting') this.state = 'ready';
    });
    // chokidar says ready for the paths it was given; with none, there is nothing to wait for.
    if (present.length === 0) this.state = 'ready';
    watcher.on('error', (error) => {
      this.state = 'degraded';
      this.problem = error instanceof Error ? error.message : String(error);
    });
    this.watcher = watcher;
  }

  /** Watch the roots that have appeared since (a discovery pass ends with this). */
  refresh(): void {
    const watcher = this.watcher;
    if (watcher === null) return;
    const appeared = this.roots.filter((root) => !this.watched.has(root) && existsSync(root));
    for (const root of appeared) this.watched.add(root);
    if (appeared.length > 0) watcher.add(appeared);
  }

  async close(): Promise<void> {
    const watcher = this.watcher;
    this.watcher = null;
    this.watched.clear();
    this.state = 'off';
    await watcher?.close();
  }
}
