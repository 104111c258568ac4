// The migration pace comes from the environment (wins), else config.json
// `history.migration.ioBytesPerSecond`, else 8 MiB/s; bad values are refused
// with a clear error before anything is touched.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { HistoryError } from '../protocols/errors.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { migrateHome } from '../src/migration/migrate-home.ts';
import { IO_RATE_ENV } from '../src/migration/pace-config.ts';

function freshHome(t: { after: (fn: () => void) => void }): { home: string; env: NodeJS.ProcessEnv } {
  const root = mkdtempSync(join(tmpdir(), 'ab-migration-config-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  mkdirSync(home);
  return { home, env: { HOME: root, AGENT_BRIDGE_HOME: home } };
}

test('the pace: environment over config.json over the 8 MiB/s default', async (t) => {
  const { home, env } = freshHome(t);
  const paths = resolvePaths(env);
  assert.equal((await migrateHome({ paths, env })).progress.ioLimitBytesPerSecond, 8 * 1024 * 1024);
  writeFileSync(paths.configJson, JSON.stringify({ history: { migration: { ioBytesPerSecond: 2_000_000 } } }));
  assert.equal((await migrateHome({ paths, env })).progress.ioLimitBytesPerSecond, 2_000_000);
  assert.equal((await migrateHome({ paths, env: { ...env, [IO_RATE_ENV]: '3000000' } })).progress.ioLimitBytesPerSecond, 3_000_000);
  assert.equal((await migrateHome({ paths, env, pace: 'max' })).progress.ioLimitBytesPerSecond, null);
  assert.ok(existsSync(join(home, 'history.db')));
});

test('a bad pace is refused with a clear error before anything is written', async (t) => {
  for (const value of ['fast', '1000', '12.5', String(512 * 1024 * 1024)]) {
    const { home, env } = freshHome(t);
    await assert.rejects(
      migrateHome({ paths: resolvePaths(env), env: { ...env, [IO_RATE_ENV]: value } }),
      (error: unknown) => error instanceof HistoryError && error.code === 'CONFIG_INVALID' && error.message.includes(IO_RATE_ENV) && error.message.includes('65536'),
    );
    assert.equal(existsSync(join(home, 'history.db')), false, value);
  }
});
