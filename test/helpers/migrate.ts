// In-process migration runs for tests: migrate a home, or stop it at a chosen
// chunk (the runner stops at its next yield, keeping its checkpoints).

import type { MigrationProgress } from '../../protocols/migration.ts';
import { LIMITS, type Limits } from '../../src/config/limits.ts';
import { resolvePaths } from '../../src/config/paths.ts';
import type { ChunkEvent } from '../../src/migration/context.ts';
import { migrateHome } from '../../src/migration/migrate-home.ts';
import { openWriter } from '../../src/store/open.ts';
import type { MigrationRunner } from '../../src/migration/runner.ts';
import type { TestHome } from './legacy-home.ts';

export interface RunOptions {
  /** Stop after the `count`-th finished chunk of this kind (and table, when given). */
  readonly stopAt?: { readonly kind: ChunkEvent['kind']; readonly table?: string; readonly count: number };
  readonly env?: NodeJS.ProcessEnv;
  readonly pace?: 'spec' | 'max';
  readonly limits?: Partial<Limits>;
  readonly retry?: boolean;
  /** Tries before a transient error ends the run (default 1: fail fast). */
  readonly transientAttempts?: number;
  readonly onChunk?: (event: ChunkEvent, runner: MigrationRunner) => void;
  readonly onRunner?: (runner: MigrationRunner) => void;
}

export async function migrate(home: TestHome, options: RunOptions = {}): Promise<MigrationProgress> {
  const controller = new AbortController();
  let seen = 0;
  const result = await migrateHome({
    paths: resolvePaths(options.env ?? home.env),
    env: options.env ?? home.env,
    pace: options.pace ?? 'max',
    limits: { ...LIMITS, ...options.limits },
    retry: options.retry,
    transientAttempts: options.transientAttempts ?? 1,
    signal: controller.signal,
    onRunner: options.onRunner,
    onChunk: (event, runner) => {
      options.onChunk?.(event, runner);
      const stop = options.stopAt;
      if (stop !== undefined && event.kind === stop.kind && (stop.table === undefined || stop.table === event.table) && ++seen === stop.count) controller.abort();
    },
  });
  return result.progress;
}

/**
 * Give history.db a row under a key the legacy history_cursors table also
 * uses, with other content: the copy pass then fails closed and latches.
 */
export function seedCursorConflict(historyDb: string): void {
  const seeded = openWriter(historyDb);
  try {
    seeded.prepare("INSERT INTO history_cursors (source, cursor) VALUES ('messages', 'not-the-legacy-cursor')").run();
  } finally {
    seeded.close();
  }
}
