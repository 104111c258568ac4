// The cross-process writer lock: one live writer; a live owner is never
// expired; a dead owner is recovered.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HistoryService } from '../src/service/history-service.ts';
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

  it('a second service waits in standby and takes over when the writer exits', async () => {
    const { home } = fixtureHome();
    const env = envFor(home);
    const first = spawnCli(['serve'], env);
    for (let i = 0; i < 200 && !existsSync(lockPath(home)); i++) await new Promise((r) => setTimeout(r, 50));
    const standby = new HistoryService({ env, mode: 'serve' });
    await standby.start();
    try {
      const waiting = await standby.status();
      assert.equal(waiting.phase, 'standby');
      assert.equal(waiting.writer.pid, first.pid, 'standby names the live writer');
      const exited = new Promise((r) => first.on('exit', r));
      first.kill('SIGTERM');
      await exited;
      let status = await standby.status();
      for (let i = 0; i < 100 && !status.writer.self; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = await standby.status();
      }
      assert.equal(status.writer.self, true, 'the standby service became the writer');
      assert.equal(JSON.parse(readFileSync(lockPath(home), 'utf8')).pid, process.pid);
    } finally {
      await standby.stop();
    }
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
