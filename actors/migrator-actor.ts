// Migrator actor: runs the legacy bridge.db → history.db migration inside the
// history worker (only the elected writer builds one) and owns its timers:
// the legacy tail replay once verified (serve mode), and, while a failure is
// latched, a look for an explicit retry request. The work itself is
// src/migration (MigrationRunner, retry). It writes history.db through the
// history worker's own connection, one synchronous transaction at a time:
// alone before capture starts, and afterwards only its tail replays, beside
// the writer thread's connection (SQLite serialises the two; the replays
// insert records and conversations only, never cursors, so the writer's
// caches stay true).

import type { Actor } from '../protocols/actor.ts';
import type { HistoryErrorShape } from '../protocols/errors.ts';
import { serializeError } from '../protocols/errors.ts';
import type { MigrationProgress, MigratorMessage, MigratorReplies } from '../protocols/migration.ts';
import type { HistoryPaths } from '../src/config/paths.ts';
import { clearLatchedFailure, pendingRetry } from '../src/migration/retry.ts';
import type { MigrationRunner } from '../src/migration/runner.ts';
import type { Db } from '../src/store/open.ts';

export interface MigratorOptions {
  readonly mode: 'serve' | 'once';
  readonly paths: HistoryPaths;
  /** The history.db writer connection (shared with the history actor). */
  readonly history: Db;
  readonly tailIntervalMs: number;
  /** How often a latched failure looks for a retry request (serve mode). */
  readonly retryPollMs: number;
}

export class MigratorActor implements Actor<MigratorMessage, MigratorReplies> {
  readonly name = 'migrator';
  private running: Promise<MigrationProgress> | null = null;
  private tailTimer: NodeJS.Timeout | null = null;
  private tailing: Promise<void> | null = null;
  private stopped = false;
  /** The last tail replay error (environment trouble; retried at the next interval). */
  tailError: HistoryErrorShape | null = null;

  constructor(
    private readonly runner: MigrationRunner,
    private readonly options: MigratorOptions,
  ) {}

  handle<T extends MigratorMessage>(message: T): MigratorReplies[T['type']] {
    return this.dispatch(message) as MigratorReplies[T['type']];
  }

  private dispatch(message: MigratorMessage): MigratorReplies[MigratorMessage['type']] {
    switch (message.type) {
      case 'run':
        this.running ??= this.run();
        return this.running;
      case 'pressure':
        this.runner.setPressure(message.active);
        return undefined;
      case 'progress':
        return this.runner.progress();
    }
  }

  /** Until verified (then the tail is caught up) or stopped; in once mode also until a failure latches. */
  private async run(): Promise<MigrationProgress> {
    for (;;) {
      const progress = await this.runner.run();
      if (progress.phase === 'verified') {
        await this.replayTail();
        if (this.options.mode === 'serve' && !this.stopped) this.scheduleTail();
        return this.runner.progress();
      }
      if (this.stopped || this.options.mode === 'once' || progress.phase !== 'failed') return progress;
      if (!(await this.retryRequested())) return this.runner.progress();
    }
  }

  /** Wait for `agent-bridge reindex --retry` to ask for a retry, then clear the latch. False when stopped first. */
  private async retryRequested(): Promise<boolean> {
    while (!this.stopped) {
      if (pendingRetry(this.options.paths, this.options.history) !== null) {
        clearLatchedFailure(this.options.history);
        return true;
      }
      await this.runner.gate.sleep(this.options.retryPollMs);
    }
    return false;
  }

  /** Replay bounded tail batches until none is left (errors are kept for status and retried later). */
  private async replayTail(): Promise<void> {
    try {
      while (!this.stopped && (await this.runner.replayTail()).more);
      this.tailError = null;
    } catch (error) {
      this.tailError = serializeError(error);
    }
  }

  private scheduleTail(): void {
    this.tailTimer = setTimeout(() => {
      this.tailTimer = null;
      this.tailing = this.replayTail().finally(() => {
        this.tailing = null;
        if (!this.stopped) this.scheduleTail();
      });
    }, this.options.tailIntervalMs);
    this.tailTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.tailTimer !== null) clearTimeout(this.tailTimer);
    this.runner.stop();
    await Promise.allSettled([this.running, this.tailing]);
  }
}
