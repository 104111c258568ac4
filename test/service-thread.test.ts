// The broker's thread runs no SQLite, no parsing and no file scanning for
// history: HistoryService only passes messages to the history worker.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { envFor, fixtureHome, repoRoot } from './helpers/home.ts';

describe('HistoryService on the broker thread', () => {
  it('loads no SQLite, parser, store or source module on the main thread while ingesting', () => {
    const { home } = fixtureHome();
    const out = execFileSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/scripts/main-thread-probe.ts')], {
      env: envFor(home),
      encoding: 'utf8',
    });
    const probe = JSON.parse(out) as { records: number; resolved: string[]; cjs: string[] };
    assert.ok(probe.records > 0, 'the worker captured the fixture');
    assert.ok(probe.resolved.some((u) => u.endsWith('/src/service/history-service.ts')), 'the tracer saw the facade load');
    const forbidden = /better-sqlite3|piscina|chokidar|\/src\/store\/|\/src\/sources\/|\/src\/ingest\/|\/src\/text\/|\/actors\/(?!ts-entry)/;
    const loaded = [...probe.resolved, ...probe.cjs].filter((u) => forbidden.test(u));
    assert.deepEqual(loaded, [], 'modules the main thread must not load');
  });
});
