// Disk full, on a real size-limited tmpfs holding the bridge home: a batch
// that finds no space is rolled back and retried, no cursor ever runs ahead
// of its records, status says why capture waits, and capture resumes by
// itself when space comes back (a remount to a larger size). The same for the
// legacy migration. `ingest --once` retries, then exits with a clear error;
// a later run finishes the capture.

import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { cli, cliJson, envFor, prng, spawnCli, tempDir } from './helpers/home.ts';
import { legacyHome } from './helpers/legacy-home.ts';
import { mountAccess, resizeTmpfs, runInMountNamespace, tmpfs } from './helpers/mounts.ts';
import { waitFor } from './helpers/wait.ts';

const MiB = 1024 * 1024;

interface LiveStatus {
  phase: string;
  pausedBy: string[];
  lastError: { code: string; message: string } | null;
  backlog: { sources: number };
  migration: { phase: string; pausedBy: string | null; error: { code: string; message: string } | null };
}

/** Claude transcripts of about `bytes` in all, words drawn from a seeded PRNG. */
function writeTranscripts(home: string, bytes: number): string[] {
  const next = prng(0xd15c);
  const dir = join(home, '.claude', 'projects', '-work-full');
  mkdirSync(dir, { recursive: true });
  const words = ['ledger', 'orchard', 'booking', 'crate', 'slot', 'harvest', 'pallet', 'invoice'];
  const paths: string[] = [];
  for (let f = 0; f < 6; f++) {
    const session = `00000000-0000-4000-8000-00000000000${f}`;
    let text = '';
    for (let i = 0; text.length < bytes / 6; i++) {
      const content = Array.from({ length: 60 }, () => `${words[Math.floor(next() * words.length)]} ${Math.floor(next() * 100000)}`).join(' ');
      text += `${JSON.stringify({ type: 'user', message: { role: 'user', content }, cwd: '/work/full', sessionId: session, uuid: `u-${f}-${i}`, timestamp: '2026-11-01T10:00:00.000Z' })}\n`;
    }
    const path = join(dir, `${session}.jsonl`);
    writeFileSync(path, text);
    paths.push(path);
  }
  return paths;
}

/** Every source's current generation tiles [0, cursor offset) exactly: no cursor ahead of its records, no gap. */
function cursorsBehindRecords(historyDb: string): string[] {
  const db = new Database(historyDb, { readonly: true });
  try {
    const problems: string[] = [];
    for (const source of db.prepare('SELECT id, generation, offset FROM conversation_sources').all() as Array<{ id: string; generation: number; offset: number }>) {
      let end = 0;
      for (const r of db.prepare('SELECT offset, length(raw) AS n FROM conversation_records WHERE source = ? AND generation = ? ORDER BY offset').all(source.id, source.generation) as Array<{ offset: number; n: number }>) {
        if (r.offset !== end) problems.push(`${source.id}: record at ${r.offset}, expected ${end}`);
        end = r.offset + r.n;
      }
      if (end !== source.offset) problems.push(`${source.id}: cursor ${source.offset}, records end at ${end}`);
    }
    return problems;
  } finally {
    db.close();
  }
}

async function liveStatus(env: NodeJS.ProcessEnv): Promise<LiveStatus | null> {
  const run = await cli(['status', '--json'], env);
  try {
    return (JSON.parse(run.stdout.toString('utf8')) as { service: LiveStatus | null }).service;
  } catch {
    return null;
  }
}

/** How long a service on a full disk gets to reach a state (its retries back off). */
const SLOW = { ms: 120_000, everyMs: 500 };

async function allCaptured(env: NodeJS.ProcessEnv, files: readonly string[]): Promise<boolean> {
  for (const path of files) {
    const raw = await cli(['raw', path], env);
    if (raw.code !== 0 || !raw.stdout.equals(readFileSync(path))) return false;
  }
  return true;
}

const access = mountAccess();

if (access === 'namespace') {
  it('runs the disk-full tests in a user and mount namespace (plain mounts are refused here)', () => {
    const run = runInMountNamespace(fileURLToPath(import.meta.url));
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /# pass [1-9]/);
    assert.match(run.output, /# fail 0/);
  });
} else {
  describe('disk full', () => {
    it('while capturing: the batch waits and retries, no cursor runs ahead, status says why, capture resumes when space returns', async () => {
      const home = tempDir();
      const files = writeTranscripts(home, 3 * MiB);
      const bridgeHome = tmpfs(1536 * 1024);
      const env = envFor(home, { AGENT_BRIDGE_HOME: bridgeHome });
      const historyDb = join(bridgeHome, 'history.db');
      const serve = spawnCli(['serve'], env);
      try {
        const waiting = await waitFor('capture to wait for space', async () => {
          const status = await liveStatus(env);
          return status?.pausedBy.includes('disk-full') === true ? status : null;
        }, SLOW);
        assert.equal(waiting.lastError?.code, 'STORE_FULL');
        assert.ok(waiting.lastError?.message.includes(historyDb), waiting.lastError?.message);
        assert.match(waiting.lastError?.message ?? '', /no space left.*waits and retries by itself/);
        // `status` is a new process: under load it may read the moment between a cooldown's end and the next failed
        // retry, so it is asked until it shows a wait (within the test's deadline), then checked whole.
        const human = await waitFor('status to show the wait', async () => {
          const text = (await cli(['status'], env)).stdout.toString('utf8');
          return /paused:\s+disk-full/.test(text) ? text : null;
        }, SLOW);
        assert.match(human, /STORE_FULL: no space left/);
        // Several retries later, still consistent, and still waiting.
        for (let i = 0; i < 3; i++) {
          assert.deepEqual(cursorsBehindRecords(historyDb), []);
          await new Promise((r) => setTimeout(r, 2500));
        }
        assert.equal((await allCaptured(env, files)), false, 'not everything fitted');

        resizeTmpfs(bridgeHome, 64 * MiB);
        await waitFor('capture to finish by itself', async () => (await liveStatus(env))?.phase === 'idle' && (await allCaptured(env, files)), SLOW);
        assert.deepEqual(cursorsBehindRecords(historyDb), []);
        const db = new Database(historyDb, { readonly: true });
        const duplicates = db.prepare('SELECT count(*) FROM (SELECT source, generation, offset FROM conversation_records GROUP BY 1, 2, 3 HAVING count(*) > 1)').pluck().get();
        const generations = db.prepare('SELECT max(generation) FROM conversation_records').pluck().get();
        db.close();
        assert.equal(duplicates, 0);
        assert.equal(generations, 0, 'no file started a new generation');
        const found = await cliJson<{ hits: unknown[] }>(['search', 'orchard', '--json'], env);
        assert.ok(found.hits.length > 0);
      } finally {
        serve.kill('SIGTERM');
        await new Promise((r) => serve.once('exit', r));
      }
    });

    it('ingest --once retries, then exits with a clear error; the next run finishes the capture', async () => {
      const home = tempDir();
      const files = writeTranscripts(home, 3 * MiB);
      const bridgeHome = tmpfs(1536 * 1024);
      const env = envFor(home, { AGENT_BRIDGE_HOME: bridgeHome });
      const run = await cli(['ingest', '--once', '--pace', 'max'], env);
      assert.equal(run.code, 1);
      assert.match(run.stderr, new RegExp(`no space left for ${join(bridgeHome, 'history.db').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.doesNotMatch(run.stderr, /\n\s+at |INTERNAL/);
      assert.deepEqual(cursorsBehindRecords(join(bridgeHome, 'history.db')), []);
      resizeTmpfs(bridgeHome, 64 * MiB);
      const again = await cli(['ingest', '--once', '--pace', 'max'], env);
      assert.equal(again.code, 0, again.stderr);
      assert.ok(await allCaptured(env, files));
      assert.deepEqual(cursorsBehindRecords(join(bridgeHome, 'history.db')), []);
    });

    it('during the legacy migration: it waits and retries, says why, and completes when space returns', async () => {
      const legacy = await legacyHome({ rows: 400, blobBytes: 0 });
      const bridgeHome = tmpfs(21 * MiB);
      cpSync(legacy.home, bridgeHome, { recursive: true });
      legacy.cleanup();
      const env = { ...legacy.env, AGENT_BRIDGE_HOME: bridgeHome };
      const serve = spawnCli(['serve'], env);
      try {
        const waiting = await waitFor('the migration to wait for space', async () => {
          const status = await liveStatus(env);
          return status?.migration.error?.code === 'STORE_FULL' ? status : null;
        }, SLOW);
        assert.equal(waiting.phase, 'migrating');
        assert.equal(waiting.migration.pausedBy, 'retry');
        assert.match(waiting.migration.error?.message ?? '', /no space left for .*the migration waits and retries by itself/);
        await waitFor('status to say why the migration waits', async () => /no space left/.test((await cli(['status'], env)).stdout.toString('utf8')), SLOW);
        resizeTmpfs(bridgeHome, 96 * MiB);
        await waitFor('the migration to complete', async () => (await liveStatus(env))?.migration.phase === 'verified', SLOW);
      } finally {
        serve.kill('SIGTERM');
        await new Promise((r) => serve.once('exit', r));
      }
      // Verified means every legacy row was copied and checked by row hash; the copy is readable.
      const db = new Database(join(bridgeHome, 'history.db'), { readonly: true });
      assert.equal(db.prepare('SELECT status FROM history_migration').pluck().get(), 'verified');
      db.close();
    });
  });
}
