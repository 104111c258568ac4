// What `agent-bridge serve` says while it runs: the source roots it found (or
// did not) with their file counts, and the backlog's progress: a line
// redrawn every second on a terminal, otherwise a line when a backlog starts,
// one every `everyMs` while it runs, and one when it is caught up.

import type { ServeProgress } from '../../protocols/service.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { censusAll, type RootCensus } from '../ingest/root-census.ts';
import { locateDatabases } from '../sources/opencode/locate.ts';
import { captureProgressText } from './capture-text.ts';
import { formatDuration, migrationLines } from './migration-text.ts';
import { formatBytes } from './output.ts';

export const PREFIX = 'agent-bridge history: ';

function rootState(c: RootCensus): string {
  switch (c.state) {
    case 'missing':
      return 'not found';
    case 'not-a-directory':
      return 'not a directory (nothing captured)';
    case 'unreadable':
      return `cannot be read (${c.code}; see agent-bridge doctor)`;
    case 'found': {
      const files = `${c.files.toLocaleString('en-US')} file${c.files === 1 ? '' : 's'}`;
      const blocked = c.unreadableDirs + c.unreadableFiles;
      return blocked === 0 ? files : `${files}, ${blocked} unreadable (see agent-bridge doctor)`;
    }
  }
}

/** One line per source root and per OpenCode database, aligned. */
export async function sourceLines(paths: HistoryPaths): Promise<string[]> {
  const rows: Array<[string, string, string]> = (await censusAll(paths)).map((c) => [c.name, c.root, rootState(c)]);
  const databases = await locateDatabases(paths);
  if (databases.length === 0) rows.push(['opencode', paths.opencodeDataDir, 'no database found']);
  for (const db of databases) rows.push(['opencode', db.path, 'database']);
  const name = Math.max(...rows.map((r) => r[0].length));
  const path = Math.max(...rows.map((r) => r[1].length));
  return rows.map(([n, p, s]) => `  ${n.padEnd(name)}  ${p.padEnd(path)}  ${s}`);
}

export interface ProgressOptions {
  readonly tty: boolean;
  /** Interval of progress lines when not on a terminal. */
  readonly everyMs: number;
}

export class ProgressReporter {
  private run: { readonly since: number; lastLineAt: number } | null = null;
  private drawn = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly options: ProgressOptions,
  ) {}

  update(status: ServeProgress, now: number): void {
    const migrating = status.phase === 'migrating';
    const running = migrating || status.capture.since !== null;
    if (!running) {
      this.finish(status, now);
      return;
    }
    const paused = status.pausedBy.length > 0 ? ` (paused: ${status.pausedBy.join(', ')})` : '';
    const text = migrating
      ? (migrationLines(status.migration, { tty: this.options.tty })[0] ?? 'migration')
      : `backlog ${captureProgressText(status.capture, status.backlog, { tty: this.options.tty })}${paused}`;
    const first = this.run === null;
    if (this.run === null) this.run = { since: status.capture.since ?? now, lastLineAt: now };
    if (this.options.tty) {
      this.write(`\r${PREFIX}${text}\x1b[K`);
      this.drawn = true;
    } else if (first || now - this.run.lastLineAt >= this.options.everyMs) {
      this.run.lastLineAt = now;
      this.write(`${PREFIX}${text}\n`);
    }
  }

  /** Ends a running backlog's report with a "caught up" line (the service's figures of the backlog just finished). */
  private finish(status: ServeProgress, now: number): void {
    const run = this.run;
    if (run === null) return;
    this.run = null;
    const last = status.capture.last;
    const captured = last === null ? '' : ` ${formatBytes(last.capturedBytes)} captured in ${formatDuration((last.until - last.since) / 1000)}`;
    const line = `${PREFIX}caught up:${captured === '' ? ` after ${formatDuration((now - run.since) / 1000)}` : captured}`;
    this.write(this.drawn ? `\r${line}\x1b[K\n` : `${line}\n`);
    this.drawn = false;
  }

  /** Leave the terminal on a fresh line (a redrawn line is never left unfinished). */
  close(): void {
    if (this.drawn) this.write('\n');
    this.drawn = false;
  }
}
