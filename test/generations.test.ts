// Generations: appends continue a generation; truncation, replacement by
// rename and rewrites in place start a new one; every generation stays
// retained and exact. Also: appending while the service runs.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HistoryService } from '../src/service/history-service.ts';
import { cli, cliJson, envFor, prng, tempDir } from './helpers/home.ts';
import { tilingProblems, withStore } from './helpers/store.ts';

const CWD = '/work/generations-project';

function line(session: string, text: string, at = '2026-11-01T10:00:00.000Z'): string {
  return `${JSON.stringify({ type: 'user', message: { role: 'user', content: text }, cwd: CWD, sessionId: session, timestamp: at, uuid: randomUUID() })}\n`;
}

function claudeFile(home: string, session: string): string {
  const dir = join(home, '.claude', 'projects', '-work-generations-project');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${session}.jsonl`);
}

async function ingest(env: NodeJS.ProcessEnv): Promise<void> {
  const run = await cli(['ingest', '--once', '--pace', 'max'], env);
  assert.equal(run.code, 0, run.stderr);
}

async function raw(env: NodeJS.ProcessEnv, path: string, generation: number): Promise<Buffer> {
  const run = await cli(['raw', path, '--generation', String(generation)], env);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

async function currentGeneration(env: NodeJS.ProcessEnv, path: string): Promise<{ generation: number; offset: number }> {
  const sources = await cliJson<Array<{ path: string; generation: number; offset: number }>>(['sources', '--json'], env);
  const source = sources.find((s) => s.path === path);
  assert.ok(source !== undefined, `${path} is a source`);
  return source;
}

describe('generations', () => {
  it('keeps every generation exact through append, unfinished line, truncation, rename and same-size rewrites', async () => {
    const home = tempDir();
    const env = envFor(home);
    const session = randomUUID();
    const path = claudeFile(home, session);
    const expected: Buffer[] = [];

    // Appends continue generation 0.
    writeFileSync(path, line(session, 'first alpha') + line(session, 'second beta') + line(session, 'third gamma'));
    await ingest(env);
    appendFileSync(path, line(session, 'fourth delta') + line(session, 'fifth epsilon'));
    await ingest(env);
    assert.deepEqual(await raw(env, path, 0), readFileSync(path));

    // A last line without a newline, completed later: still generation 0, exact.
    appendFileSync(path, '{"type":"user","message":{"role":"user","content":"unfinished completionw');
    await ingest(env);
    appendFileSync(path, `ordhalf then more"},"cwd":"${CWD}","sessionId":"${session}"}\n`);
    await ingest(env);
    expected[0] = readFileSync(path);
    assert.deepEqual(await raw(env, path, 0), expected[0]);
    assert.equal((await currentGeneration(env, path)).generation, 0);
    const completed = await cliJson<{ hits: Array<{ conversation: string }> }>(['search', 'completionwordhalf', '--json'], env);
    assert.deepEqual(completed.hits.map((h) => h.conversation), [`claude:${session}`], 'a word split by the unfinished-line boundary is found');

    // Truncated in place to something shorter: generation 1.
    writeFileSync(path, line(session, 'short zeta'));
    await ingest(env);
    expected[1] = readFileSync(path);
    assert.equal((await currentGeneration(env, path)).generation, 1);

    // Replaced by rename: a new identity, generation 2.
    const temp = `${path}.tmp`;
    writeFileSync(temp, line(session, 'renamed eta') + line(session, 'renamed theta'));
    renameSync(temp, path);
    await ingest(env);
    expected[2] = readFileSync(path);
    assert.equal((await currentGeneration(env, path)).generation, 2);
    // The stored cursor names the new file (dev:ino:birth time from its stat), which the next run starts from.
    const stat = statSync(path);
    const stored = withStore(home, (db) => db.prepare('SELECT identity FROM conversation_sources WHERE path = ?').pluck().get(path));
    assert.equal(stored, `${stat.dev}:${stat.ino}:${stat.birthtimeMs}`);

    // Rewritten in place, same size, different last bytes: generation 3.
    const sameSize = Buffer.from(expected[2]);
    sameSize.write('X', sameSize.length - 10, 'latin1');
    const fd = openSync(path, 'r+');
    writeSync(fd, sameSize, 0, sameSize.length, 0);
    closeSync(fd);
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    await ingest(env);
    expected[3] = readFileSync(path);
    assert.equal((await currentGeneration(env, path)).generation, 3);

    // Rewritten in place, same size, same first KiB and last 64 bytes, a changed middle: generation 4.
    const big = Buffer.from(line(session, 'a'.repeat(1500) + ' middle iota ' + 'b'.repeat(1500)));
    writeFileSync(path, big);
    await ingest(env);
    expected[4] = readFileSync(path);
    const middle = Buffer.from(big);
    middle.write('MIDDLE', big.indexOf('middle'), 'latin1');
    const fd2 = openSync(path, 'r+');
    writeSync(fd2, middle, 0, middle.length, 0);
    closeSync(fd2);
    utimesSync(path, new Date(), new Date(Date.now() + 10_000));
    await ingest(env);
    expected[5] = readFileSync(path);
    assert.notDeepEqual(expected[5], expected[4]);
    assert.equal((await currentGeneration(env, path)).generation, 5);

    // Truncated to nothing: a new, empty generation that later writes continue.
    writeFileSync(path, '');
    await ingest(env);
    assert.deepEqual(await currentGeneration(env, path), { ...(await currentGeneration(env, path)), generation: 6, offset: 0 });
    appendFileSync(path, line(session, 'after emptiness mu'));
    await ingest(env);
    expected[6] = readFileSync(path);
    const final = await currentGeneration(env, path);
    assert.deepEqual(final, { ...final, generation: 6, offset: expected[6].length });

    for (const [generation, bytes] of expected.entries()) {
      assert.deepEqual(await raw(env, path, generation), bytes, `generation ${generation}`);
    }
    withStore(home, (db) => assert.deepEqual(tilingProblems(db), []));
  });

  it('keeps the bytes of a file deleted from disk, without reporting a problem', async () => {
    const home = tempDir();
    const env = envFor(home);
    const session = randomUUID();
    const path = claudeFile(home, session);
    writeFileSync(path, line(session, 'ephemeral kappa') + line(session, 'ephemeral lambda'));
    const bytes = readFileSync(path);
    await ingest(env);
    rmSync(path);
    const service = new HistoryService({ env, mode: 'serve', pace: 'max' });
    await service.start();
    try {
      let status = await service.status();
      for (let i = 0; i < 100 && status.discovery.passes === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = await service.status();
      }
      assert.equal(status.discovery.gone, 1, 'the deleted file is counted as gone');
      assert.deepEqual(status.problems, [], 'a deleted source is not a problem');
    } finally {
      await service.stop();
    }
    assert.deepEqual(await raw(env, path, 0), bytes, 'its captured bytes are retained');
  });

  it('captures a file exactly while it is being appended to, including lines written in pieces', async () => {
    const home = tempDir();
    const env = envFor(home);
    const sessions = [randomUUID(), randomUUID()];
    const paths = sessions.map((s) => claudeFile(home, s));
    for (const p of paths) writeFileSync(p, '');
    const service = new HistoryService({ env, mode: 'serve', pace: 'spec' });
    await service.start();
    const random = prng(7);
    try {
      for (let i = 0; i < 240; i++) {
        const which = Math.floor(random() * 2);
        const size = random() < 0.05 ? 70_000 + Math.floor(random() * 150_000) : Math.floor(random() * 3000);
        const text = line(sessions[which] as string, `entry${i} ${'word '.repeat(size / 5)}`);
        if (random() < 0.3) {
          // A line written in two pieces, as a slow writer would.
          const cut = Math.floor(text.length / 2);
          appendFileSync(paths[which] as string, text.slice(0, cut));
          await new Promise((resolve) => setTimeout(resolve, 5));
          appendFileSync(paths[which] as string, text.slice(cut));
        } else {
          appendFileSync(paths[which] as string, text);
        }
        if (random() < 0.2) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Wait until everything written is captured.
      const sizes = paths.map((p) => readFileSync(p).length);
      for (let i = 0; i < 300; i++) {
        const sources = await cliJson<Array<{ path: string; offset: number }>>(['sources', '--json'], env);
        if (paths.every((p, k) => sources.find((s) => s.path === p)?.offset === sizes[k])) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      await service.stop();
    }
    for (const p of paths) {
      assert.deepEqual(await raw(env, p, 0), readFileSync(p), `${p} captured exactly`);
      assert.equal((await currentGeneration(env, p)).generation, 0, 'appends never start a new generation');
    }
    withStore(home, (db) => assert.deepEqual(tilingProblems(db), []));
  });
});
