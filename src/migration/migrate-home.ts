// Migrate a home from a process that is not running the service: take the
// writer lock, open history.db, optionally clear a latched failure (explicit
// retry), run the migration to its end, replay the legacy tail, release.
// Used by `agent-bridge reindex --retry`, test drivers and benchmarks; the
// service runs the same MigrationRunner inside its history worker.

import type { MigrationProgress } from '../../protocols/migration.ts';
import type { Pace } from '../../protocols/service.ts';
import { LIMITS, type Limits } from '../config/limits.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { SettingsWatcher } from '../config/settings.ts';
import { openWriter } from '../store/open.ts';
import { WriterLock } from '../store/writer-lock.ts';
import type { ChunkEvent, UnitEvent } from './context.ts';
import { migrationRate } from './pace-config.ts';
import type { ClearResult } from './retry.ts';
import { clearLatchedFailure } from './retry.ts';
import { MigrationRunner } from './runner.ts';

export interface MigrateHomeOptions {
  readonly paths: HistoryPaths;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly pace?: Pace;
  readonly limits?: Limits;
  /** Clear a latched failure first (`reindex --retry`). */
  readonly retry?: boolean;
  /** Replay the legacy tail once verified (default true). */
  readonly tail?: boolean;
  readonly transientAttempts?: number;
  readonly signal?: AbortSignal;
  readonly onChunk?: (event: ChunkEvent, runner: MigrationRunner) => void;
  readonly onUnit?: (event: UnitEvent) => void;
  /** Called with the runner once it exists (progress display). */
  readonly onRunner?: (runner: MigrationRunner) => void;
}

export interface MigrateHomeResult {
  readonly progress: MigrationProgress;
  readonly cleared: ClearResult | null;
}

export async function migrateHome(options: MigrateHomeOptions): Promise<MigrateHomeResult> {
  const { paths } = options;
  const limits = options.limits ?? LIMITS;
  const settings = new SettingsWatcher(paths.configJson);
  const rate = migrationRate({ pace: options.pace ?? 'spec', env: options.env ?? process.env, settings: () => settings.read().settings });
  const lock = WriterLock.acquire(paths.writerLock);
  try {
    const history = openWriter(paths.historyDb);
    try {
      const cleared = options.retry === true ? clearLatchedFailure(history) : null;
      const runner: MigrationRunner = new MigrationRunner({
        paths,
        history,
        limits,
        rate,
        transientAttempts: options.transientAttempts ?? 3,
        switchedOff: () => !settings.read().settings.ingest,
        onChunk: (event) => options.onChunk?.(event, runner),
        onUnit: options.onUnit,
      });
      options.onRunner?.(runner);
      const stop = (): void => runner.stop();
      options.signal?.addEventListener('abort', stop, { once: true });
      try {
        let progress = await runner.run();
        if (progress.phase === 'verified' && options.tail !== false && !runner.gate.stopping) {
          while ((await runner.replayTail()).more && !runner.gate.stopping);
          progress = runner.progress();
        }
        return { progress, cleared };
      } finally {
        options.signal?.removeEventListener('abort', stop);
      }
    } finally {
      history.close();
    }
  } finally {
    lock.release();
  }
}
