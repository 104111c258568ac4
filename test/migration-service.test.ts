// The migration inside the running service (HistoryService → history worker
// → supervisor → migrator actor), as the broker embeds it: start() returns
// before the migration is done, pressure from the broker pauses it, status
// carries the progress object, a latched failure keeps ingestion off, and
// `agent-bridge reindex --retry` run while the service holds the writer lock
// asks the service to retry (a request file), after which it verifies and
// ingestion starts.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HistoryStatus } from '../protocols/service.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { migrationLines } from '../src/cli/migration-text.ts';
import { HistoryService } from '../src/service/history-service.ts';
import { legacyHome } from './helpers/legacy-home.ts';
import { cli } from './helpers/home.ts';
import { migrationRow } from './helpers/migration-db.ts';
import { seedCursorConflict } from './helpers/migrate.ts';
import { waitFor } from './helpers/wait.ts';

async function until(service: HistoryService, what: string, check: (s: HistoryStatus) => boolean): Promise<HistoryStatus> {
  let last: HistoryStatus | undefined;
  const probe = async (): Promise<HistoryStatus | null> => {
    last = await service.status();
    return check(last) ? last : null;
  };
  return waitFor(() => `${what}; last status ${JSON.stringify(last?.migration)}`, probe, { everyMs: 50 });
}

test('serve mode: pressure pauses the migration, a latched failure blocks ingestion, reindex --retry goes through the running service', async (t) => {
  const home = await legacyHome();
  const paths = resolvePaths(home.env);
  seedCursorConflict(paths.historyDb);

  const service = new HistoryService({ env: home.env, mode: 'serve', pace: 'max' });
  // One hook, in this order: after hooks run first-registered first, and a
  // failing hook skips the rest, so a home removed under a live service both
  // fails and leaves the service's worker holding the test process open.
  t.after(async () => {
    await service.stop();
    home.cleanup();
  });
  service.pressure(true); // the broker is busy from the start
  await service.start();
  const paused = await until(service, 'a paused migration', (s) => s.migration.phase === 'paused');
  assert.equal(paused.phase, 'migrating');
  assert.equal(paused.migration.pausedBy, 'pressure');
  await sleep(300);
  assert.equal((await service.status()).migration.rowsDone, paused.migration.rowsDone, 'no chunk while under pressure');
  service.pressure(false);

  const failed = await until(service, 'the latched failure', (s) => s.migration.phase === 'failed');
  assert.equal(failed.phase, 'failed');
  assert.equal(failed.lastError?.code, 'VERIFY_FAILED');
  assert.match(migrationLines(failed.migration, { tty: false }).join('\n'), /reindex --retry/);
  // The store itself: status().counts are refreshed at most every 5 s.
  const reader = new Database(paths.historyDb, { readonly: true });
  const records = reader.prepare('SELECT count(*) FROM conversation_records').pluck().get();
  reader.close();
  assert.equal(records, 0, 'no ingestion while the migration is failed');
  assert.equal(migrationRow(paths.historyDb)?.status, 'failed');

  const owner = new Database(paths.historyDb);
  owner.prepare("DELETE FROM history_cursors WHERE source = 'messages' AND cursor = 'not-the-legacy-cursor'").run();
  owner.close();
  const retry = await cli(['reindex', '--retry'], home.env);
  assert.equal(retry.code, 0, retry.stderr + retry.stdout);
  assert.match(retry.stderr, /asked the running history service/);

  const verified = await until(service, 'verification after the retry', (s) => s.migration.phase === 'verified' && (s.phase === 'idle' || s.phase === 'ingesting'));
  assert.equal(verified.migration.percent, 100);
  assert.equal(verified.lastError, null);
  assert.equal(migrationRow(paths.historyDb)?.status, 'verified');
  const tty = migrationLines({ ...verified.migration, phase: 'copy', pass: 'copy', percent: 50 }, { tty: true })[0] ?? '';
  assert.match(tty, /copy 50\.0%, \[#{12}-{12}\]/, 'a progress bar on a TTY');
});
