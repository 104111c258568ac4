// Failures: a data disagreement fails closed and stays latched (no restart
// retries it) until `agent-bridge reindex --retry`; environment trouble (a
// busy history.db) is retried and never latched.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { MigrationProgress } from '../protocols/migration.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { readMigrationProgress } from '../src/migration/status.ts';
import { legacyHome } from './helpers/legacy-home.ts';
import { cli } from './helpers/home.ts';
import { digests, migrationRow, snapshotFiles } from './helpers/migration-db.ts';
import { migrate, seedCursorConflict } from './helpers/migrate.ts';

function progressCursor(home: string): unknown {
  const [snapshot] = snapshotFiles(home);
  const db = new Database(join(home, '.migration-snapshots', `${snapshot}.progress.db`), { readonly: true });
  try {
    return db.prepare('SELECT name, copy_end, copy_rows FROM tables ORDER BY position').all();
  } finally {
    db.close();
  }
}

test('a conflicting pre-existing row fails closed, stays latched across restarts, and reindex --retry completes once it is resolved', async (t) => {
  const home = await legacyHome();
  t.after(() => home.cleanup());
  const paths = resolvePaths(home.env);
  const bridge = home.manifest.databases['bridge.db'];

  // history.db already holds a row under a key the legacy table also uses, with other content.
  seedCursorConflict(paths.historyDb);

  const run = await cli(['ingest', '--once', '--pace', 'max'], home.env);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /reindex --retry/);
  assert.match(run.stderr, /history_cursors/);
  const failed = migrationRow(paths.historyDb);
  assert.equal(failed?.status, 'failed');
  const failure = failed?.manifest as { error: { code: string }; resumeStatus: string; at: number };
  assert.equal(failure.error.code, 'VERIFY_FAILED');
  assert.equal(failure.resumeStatus, 'copying');
  // Nothing was thrown away: both databases and the snapshot are still there, the legacy rows untouched.
  assert.equal(snapshotFiles(home.home).filter((f) => !/-mj/.test(f)).length, 2);
  const legacyNow = await digests(paths.bridgeDb, bridge.legacyHistoryTables);
  for (const name of bridge.legacyHistoryTables) assert.equal(legacyNow[name]?.sha256, bridge.tables[name]?.sha256, name);

  // Restarts do not retry: the row, its error and the copy cursors stay exactly as they were.
  const cursors = progressCursor(home.home);
  for (let i = 0; i < 2; i++) {
    const restarted = await migrate(home);
    assert.equal(restarted.phase, 'failed');
    assert.deepEqual(migrationRow(paths.historyDb), failed);
    assert.deepEqual(progressCursor(home.home), cursors);
  }
  assert.equal(readMigrationProgress(paths)?.phase, 'failed');
  const status = await cli(['status'], home.env);
  assert.match(status.stdout.toString(), /migration: failed: .*history_cursors/);
  assert.match(status.stdout.toString(), /reindex --retry/);

  // The owner resolves the conflict; an explicit retry resumes and verifies.
  const owner = new Database(paths.historyDb);
  owner.prepare("DELETE FROM history_cursors WHERE source = 'messages' AND cursor = 'not-the-legacy-cursor'").run();
  owner.close();
  const retry = await cli(['reindex', '--retry'], home.env);
  assert.equal(retry.code, 0, retry.stderr + retry.stdout);
  assert.match(retry.stdout.toString(), /cleared the latched failure/);
  assert.equal(migrationRow(paths.historyDb)?.status, 'verified');
  const copied = await digests(paths.historyDb, bridge.legacyHistoryTables);
  for (const name of bridge.legacyHistoryTables) assert.deepEqual(copied[name], { rows: bridge.tables[name]?.rows, sha256: bridge.tables[name]?.sha256 }, name);
});

test('a busy history.db is retried after a cooldown and never latched', async (t) => {
  const home = await legacyHome();
  t.after(() => home.cleanup());
  const paths = resolvePaths(home.env);
  let blocker: Database.Database | null = null;
  let released = false;
  const release = (): void => {
    if (blocker === null || released) return;
    released = true;
    blocker.prepare('ROLLBACK').run();
    blocker.close();
  };
  const seen: MigrationProgress[] = [];
  const progress = await migrate(home, {
    transientAttempts: 5,
    limits: { cooldownMs: 300 },
    onChunk: (event) => {
      // Another process takes history.db's write lock before the copy pass and holds it until a retry is reported.
      if (event.kind === 'snapshot-verify' && blocker === null) {
        blocker = new Database(paths.historyDb);
        blocker.prepare('BEGIN IMMEDIATE').run();
      }
    },
    onRunner: (runner) => {
      const timer = setInterval(() => {
        const now = runner.progress();
        seen.push(now);
        if (now.pausedBy === 'retry') release();
      }, 50);
      t.after(() => {
        clearInterval(timer);
        release();
      });
    },
  });
  assert.ok(blocker !== null);
  assert.equal(progress.phase, 'verified');
  assert.ok(
    seen.some((p) => p.pausedBy === 'retry' && p.error?.code === 'STORE_BUSY'),
    'the busy store was reported as a retry',
  );
  assert.ok(!seen.some((p) => p.phase === 'failed'));
  assert.equal(migrationRow(paths.historyDb)?.status, 'verified');
});
