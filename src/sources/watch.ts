// Change notifications for the source roots (chokidar). A notification only
// moves a file to the front of the queue; it is never the only way a change
// is seen: bounded polling of registered files is the portable fallback, so
// a watch that fails (inotify limits, network file systems) degrades to
// polling and is reported in status, nothing more.

import { watch, type FSWatcher } from 'chokidar';

export type WatchState = 'off' | 'starting' | 'ready' | 'degraded';

const CAPTURED = /\.(jsonl|txt|json|zst)$/;

export class SourceWatch {
  private watcher: FSWatcher | null = null;
  state: WatchState = 'off';
  problem: string | null = null;

  constructor(
    private readonly roots: readonly string[],
    private readonly onChange: (path: string) => void,
  ) {}

  start(): void {
    if (this.watcher !== null || this.roots.length === 0) return;
    this.state = 'starting';
    const watcher = watch([...this.roots], {
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
    watcher.on('error', (error) => {
      this.state = 'degraded';
      this.problem = error instanceof Error ? error.message : String(error);
    });
    this.watcher = watcher;
  }

  async close(): Promise<void> {
    const watcher = this.watcher;
    this.watcher = null;
    this.state = 'off';
    await watcher?.close();
  }
}
