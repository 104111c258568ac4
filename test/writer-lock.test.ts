// The cross-process writer lock: one live writer; a live owner is never
// expired; a dead owner is recovered.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cli, envFor, fixtureHome, spawnCli } from './helpers/home.ts';

function lockPath(home: string): string {
  return join(home, '.agent-bridge', 'history.db.lock');
}

describe('writer lock', () => {
  it('refuses a second writer while a live one runs, and releases on exit', async () => {
    const { home } = fixtureHome();
    const env = envFor(home);
    const serve = spawnCli(['serve'], env);
    try {
      for (let i = 0; i < 200 && !existsSync(lockPath(home)); i++) await new Promise((r) => setTimeout(r, 50));
      const owner = JSON.parse(readFileSync(lockPath(home), 'utf8')) as { pid: number };
      assert.equal(owner.pid, serve.pid);
      const second = await cli(['ingest', '--once'], env);
      assert.equal(second.code, 1);
      assert.match(second.stderr, new RegExp(`another process \\(pid ${serve.pid}\\)`));
    } finally {
      const exited = new Promise((r) => serve.on('exit', r));
      serve.kill('SIGTERM');
      await exited;
    }
    assert.equal(existsSync(lockPath(home)), false, 'a clean stop releases the lock');
    assert.equal((await cli(['ingest', '--once'], env)).code, 0);
  });

  it('recovers the lock of a dead owner', async () => {
    const { home } = fixtureHome();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    mkdirSync(join(home, '.agent-bridge'), { recursive: true });
    writeFileSync(lockPath(home), JSON.stringify({ pid: dead, nonce: 'dead', start: '1', since: Date.now() }));
    const run = await cli(['ingest', '--once'], envFor(home));
    assert.equal(run.code, 0, run.stderr);
  });

  it('never expires a live owner, however old its lock', async () => {
    const { home } = fixtureHome();
    mkdirSync(join(home, '.agent-bridge'), { recursive: true });
    // This test process is alive; its lock is from 1970.
    writeFileSync(lockPath(home), JSON.stringify({ pid: process.pid, nonce: 'live', start: '', since: 0 }));
    const run = await cli(['ingest', '--once'], envFor(home));
    assert.equal(run.code, 1);
    assert.match(run.stderr, /another process/);
    assert.equal(JSON.parse(readFileSync(lockPath(home), 'utf8')).nonce, 'live', 'the live owner keeps its lock');
  });
});
