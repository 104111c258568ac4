// The two ingestion switches: AGENT_BRIDGE_HISTORY_INGEST=false|0 (the worker
// never starts) and config.json {"history": {"ingest": false}} (pause at the
// next yield keeping cursors; resume without a restart).

import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HistoryService } from '../src/service/history-service.ts';
import { cli, envFor, fixtureHome } from './helpers/home.ts';
import { totals } from './helpers/store.ts';
import { waitFor } from './helpers/wait.ts';

/** The store's record count once it has not moved for a second. */
async function steadyRecords(home: string): Promise<number> {
  let last = totals(home).records;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = totals(home).records;
    if (now === last) return now;
    last = now;
  }
}

function setIngest(home: string, ingest: boolean): void {
  mkdirSync(join(home, '.agent-bridge'), { recursive: true });
  // Keys we do not know must survive; we never write this file in production, the test plays the user.
  writeFileSync(join(home, '.agent-bridge', 'config.json'), `${JSON.stringify({ autoWake: true, history: { ingest }, version: 2 }, null, 2)}\n`);
}

describe('ingestion switches', () => {
  for (const value of ['false', '0']) {
    it(`AGENT_BRIDGE_HISTORY_INGEST=${value} keeps the worker from starting`, async () => {
      const { home } = fixtureHome();
      const env = envFor(home, { AGENT_BRIDGE_HISTORY_INGEST: value });
      const run = await cli(['ingest', '--once'], env);
      assert.equal(run.code, 0);
      assert.match(run.stderr, /disabled/);
      assert.equal(existsSync(join(home, '.agent-bridge', 'history.db')), false, 'nothing was created');
      const service = new HistoryService({ env, mode: 'serve' });
      await service.start();
      assert.equal(service.running, false, 'no worker thread');
      assert.equal((await service.status()).phase, 'disabled');
      await service.stop();
    });
  }

  it('broker pressure pauses capture at the next yield and releasing it resumes; a lock error cools down', async () => {
    const { home } = fixtureHome();
    const service = new HistoryService({ env: envFor(home), mode: 'serve', pace: 'spec' });
    service.pressure(true); // before start: the worker starts paused
    await service.start();
    try {
      await waitFor('the pressure pause', async () => (await service.status()).pausedBy.includes('pressure'));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(totals(home).records, 0, 'nothing captured under pressure');
      service.pressure(false);
      await waitFor('capture after the pressure is released', async () => (await service.status()).counts.records > 0);
      service.lockError();
      await waitFor('the cooldown after a lock error', async () => (await service.status()).pausedBy.includes('cooldown'));
      await waitFor('the end of the cooldown', async () => !(await service.status()).pausedBy.includes('cooldown'), { ms: 15_000 });
    } finally {
      await service.stop();
    }
  });

  it('config.json history.ingest=false pauses capture, keeps cursors, and resumes without a restart', async () => {
    const { home } = fixtureHome();
    setIngest(home, false);
    const env = envFor(home);
    const service = new HistoryService({ env, mode: 'serve', pace: 'max' });
    await service.start();
    try {
      await waitFor('the config pause', async () => (await service.status()).pausedBy.includes('config'));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      // The store itself, not status().counts: those are refreshed at most every 5 s.
      assert.equal(totals(home).records, 0, 'nothing captured while switched off');

      setIngest(home, true);
      await waitFor('capture after switching on', async () => {
        const s = await service.status();
        return s.counts.records > 0 && s.backlog.sources === 0 && s.discovery.passes > 0;
      });

      // Off again: new bytes wait, and nothing captured is lost. A batch in
      // flight when the switch flips may still commit, so the count is taken
      // once it has held still for a second.
      setIngest(home, false);
      await waitFor('the second pause', async () => (await service.status()).pausedBy.includes('config'));
      const captured = await steadyRecords(home);
      assert.ok(captured > 0, 'the first capture committed records');
      const file = join(home, '.claude', 'projects', '-home-fixture-work-orchard-app-v2', 'e0ac3909-5c4b-4adf-8435-d642f59e06c1.jsonl');
      appendFileSync(file, `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'switchedoffwombat' }, cwd: '/home/fixture/work/orchard_app.v2' })}\n`);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(totals(home).records, captured, 'paused: the appended line is not captured yet');

      setIngest(home, true);
      await waitFor('the appended line after switching on again', () => totals(home).records > captured);
    } finally {
      await service.stop();
    }
  });
});
