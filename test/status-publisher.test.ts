// The service checks its status every second and writes history.status.json
// only when it changed (the times it was taken aside) or as a heartbeat, so
// that an idle service does not replace the file (and wake watchers of the
// bridge home) every second, while health still sees a live writer.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { HEALTH_STALE_AFTER_MS } from '../protocols/health.ts';
import type { HistoryStatus } from '../protocols/service.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { STATUS_HEARTBEAT_MS, StatusPublisher, statusFilePath } from '../src/store/status-file.ts';
import { cli, envFor, fixtureHome, tempDir } from './helpers/home.ts';

describe('status publisher', () => {
  let env: NodeJS.ProcessEnv;
  let real: HistoryStatus;
  before(async () => {
    // A real status, as a once run publishes it.
    env = envFor(fixtureHome().home);
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    real = JSON.parse(readFileSync(statusFilePath(resolvePaths(env)), 'utf8')) as HistoryStatus;
  });

  it('writes a changed status, skips one that differs only in its times, and writes a heartbeat', () => {
    const other = tempDir('ab-status-');
    const paths = { ...resolvePaths(env), bridgeHome: other };
    const onDisk = (): HistoryStatus => JSON.parse(readFileSync(statusFilePath(paths), 'utf8')) as HistoryStatus;
    const at = (t: number, change: Partial<HistoryStatus> = {}): HistoryStatus => ({ ...real, ...change, updatedAt: t, migration: { ...real.migration, updatedAt: t } });
    const publisher = new StatusPublisher(paths);
    const t0 = 1_800_000_000_000;

    assert.equal(publisher.publish(at(t0)), true, 'the first status is written');
    assert.equal(onDisk().updatedAt, t0);
    assert.equal(publisher.publish(at(t0 + 1000)), false, 'only the times changed');
    assert.equal(onDisk().updatedAt, t0);
    const backlog = { sources: real.backlog.sources + 3, bytes: real.backlog.bytes + 4096 };
    assert.equal(publisher.publish(at(t0 + 2000, { backlog })), true, 'a changed backlog is written at once');
    assert.deepEqual([onDisk().updatedAt, onDisk().backlog], [t0 + 2000, backlog]);
    assert.equal(publisher.publish(at(t0 + 2000 + STATUS_HEARTBEAT_MS - 1, { backlog })), false);
    assert.equal(publisher.publish(at(t0 + 2000 + STATUS_HEARTBEAT_MS, { backlog })), true, 'the heartbeat');
    assert.equal(onDisk().updatedAt, t0 + 2000 + STATUS_HEARTBEAT_MS);

    // A heartbeat (checked every second) comes well before health would call the writer stale.
    assert.ok(STATUS_HEARTBEAT_MS + 1000 <= HEALTH_STALE_AFTER_MS / 2, `heartbeat ${STATUS_HEARTBEAT_MS} ms`);
  });

  it('tries a failed write again at the next publish, unchanged or not', () => {
    const missing = join(tempDir('ab-status-'), 'not-yet');
    const paths = { ...resolvePaths(env), bridgeHome: missing };
    const publisher = new StatusPublisher(paths);
    assert.throws(() => publisher.publish({ ...real, updatedAt: 1 }), /ENOENT/);
    mkdirSync(missing);
    assert.equal(publisher.publish({ ...real, updatedAt: 2 }), true);
    assert.equal((JSON.parse(readFileSync(statusFilePath(paths), 'utf8')) as HistoryStatus).updatedAt, 2);
  });
});
