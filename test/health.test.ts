// The health object (src/status/health.ts) from the files a real service
// leaves: its published status and the writer lock. A status left by a dead
// writer is not live; a live writer whose status is old is stale; a live
// status is read without touching history.db (it costs two small file reads).

import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { HistoryStatus } from '../protocols/service.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { healthStatus } from '../src/status/health.ts';
import { statusFilePath } from '../src/store/status-file.ts';
import { cli, envFor, fixtureHome } from './helpers/home.ts';

describe('health', () => {
  it('reads the published status and the lock: stopped, running, stale, starting, disabled', async () => {
    const { home } = fixtureHome();
    const env = envFor(home);
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    const paths = resolvePaths(env);
    // The once run published its status (and released the lock when it ended).
    const published = JSON.parse(readFileSync(statusFilePath(paths), 'utf8')) as HistoryStatus;
    assert.equal(published.mode, 'once');

    const stopped = healthStatus(paths, { env });
    assert.equal(stopped.service.state, 'stopped', 'a status left by a writer that is gone is not live');
    assert.deepEqual([stopped.capture.phase, stopped.store, stopped.migration.phase, stopped.migration.live], ['stopped', null, 'verified', false]);

    // This test process plays a live writer: the lock names it, and so does the status.
    const now = Date.now();
    writeFileSync(paths.writerLock, JSON.stringify({ pid: process.pid, nonce: 'test', start: '', since: now - 60_000 }));
    const problem = { path: paths.configJson, code: 'CONFIG_INVALID', message: 'config.json is not valid JSON' };
    const live: HistoryStatus = { ...published, writer: { pid: process.pid, self: true }, updatedAt: now - 500, problems: [problem] };
    writeFileSync(statusFilePath(paths), JSON.stringify(live));
    renameSync(paths.historyDb, `${paths.historyDb}.away`); // a live status needs no store read
    try {
      const running = healthStatus(paths, { env, now });
      assert.equal(running.service.state, 'running');
      assert.deepEqual([running.service.pid, running.service.ageMs, running.service.mode], [process.pid, 500, 'once']);
      assert.deepEqual(running.store, published.counts);
      assert.deepEqual(running.capture.last, published.capture.last);
      assert.equal(running.migration.live, true);
      assert.deepEqual(running.errors, [{ origin: 'config', code: 'CONFIG_INVALID', message: problem.message, path: paths.configJson }]);
      assert.equal(running.errorCount, 1);

      assert.equal(healthStatus(paths, { env, now: now + 30_000 }).service.state, 'stale');
      writeFileSync(statusFilePath(paths), JSON.stringify({ ...live, writer: { pid: process.pid + 1, self: true } }));
      assert.equal(healthStatus(paths, { env, now }).service.state, 'stale', 'the live writer has published nothing of its own for a minute');
      writeFileSync(paths.writerLock, JSON.stringify({ pid: process.pid, nonce: 'test', start: '', since: now - 1000 }));
      assert.equal(healthStatus(paths, { env, now }).service.state, 'starting');
    } finally {
      renameSync(`${paths.historyDb}.away`, paths.historyDb);
    }
    writeFileSync(paths.writerLock, '');
    assert.equal(healthStatus(paths, { env: { ...env, AGENT_BRIDGE_HISTORY_INGEST: '0' } }).service.state, 'disabled');

    const text = await cli(['health'], env);
    assert.equal(text.code, 0);
    assert.match(text.stdout.toString(), /^service: {3}not running/m);
    assert.match(text.stdout.toString(), /^migration: verified$/m);
  });
});
