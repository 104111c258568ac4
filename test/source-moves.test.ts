// A file that moves stays one source (issue 10 §1): Codex archiving a
// rollout, a file moved twice, moved back, moved while a new file takes its
// old name, and a real hard link, each across several separate `ingest
// --once` processes and a `serve` restart. After every process the store
// must hold exactly the expected sources, every generation's bytes must be
// what the file held, and no (source, generation, offset) may repeat. Also:
// SIGKILLs at random moments after a move.

import assert from 'node:assert/strict';
import { appendFileSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { cli, cliJson, envFor, prng, spawnCli, tempDir } from './helpers/home.ts';
import { captured, codexLine, duplicateKeys, killAfterCommits, rolloutPath } from './helpers/rollouts.ts';
import { tilingProblems, withStore } from './helpers/store.ts';

async function ingest(env: NodeJS.ProcessEnv): Promise<void> {
  const run = await cli(['ingest', '--once', '--pace', 'max'], env);
  assert.equal(run.code, 0, run.stderr);
}

/** Run `serve` until it has completed a discovery pass with nothing pending, then stop it with SIGTERM. */
async function serveUntilIdle(home: string, env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawnCli(['serve'], env);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const statusFile = join(home, '.agent-bridge', 'history.status.json');
  const startedAt = Date.now();
  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      let status: { writer: { pid: number }; phase: string; discovery: { passes: number }; backlog: { sources: number } } | null = null;
      try {
        status = JSON.parse(readFileSync(statusFile, 'utf8'));
      } catch {
        status = null;
      }
      if (status !== null && status.writer.pid === child.pid && status.discovery.passes >= 1 && status.backlog.sources === 0 && status.phase === 'idle') break;
      assert.ok(Date.now() - startedAt < 60_000, 'serve settles within a minute');
    }
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, 'serve stops cleanly');
}

/** What the store must hold: one source per path, whose generation 0 is the file's bytes. */
function assertStore(home: string, expected: ReadonlyArray<{ path: string; bytes: Buffer }>, extra: ReadonlyArray<{ path: string; bytes: Buffer }>, step: string): void {
  const sources = captured(home);
  const all = [...expected, ...extra];
  assert.equal(sources.length, all.length, `${step}: ${all.length} sources, got ${sources.map((s) => s.path).join(', ')}`);
  for (const file of all) {
    const matching = sources.filter((s) => s.path === file.path);
    assert.equal(matching.length, 1, `${step}: one source at ${file.path}`);
    const source = matching[0] as (typeof sources)[number];
    assert.equal(source.generation, 0, `${step}: ${file.path} stays in generation 0`);
    assert.deepEqual([...source.generations.keys()], [0], `${step}: ${file.path} has one generation`);
    assert.deepEqual(source.generations.get(0), file.bytes, `${step}: ${file.path} generation 0 is the file's bytes`);
  }
  withStore(home, (db) => {
    assert.equal(duplicateKeys(db), 0, `${step}: no (source, generation, offset) twice`);
    assert.deepEqual(tilingProblems(db), [], `${step}: records tile each generation`);
  });
}

describe('moved sources', () => {
  it('stay one source through moves, a move back, a new file at the old name and a hard link, across processes and a serve restart', async () => {
    const home = tempDir();
    const env = envFor(home);
    const archived = (name: string): string => join(home, '.codex', 'archived_sessions', name);
    mkdirSync(join(home, '.codex', 'archived_sessions'), { recursive: true });
    const once = rolloutPath(home); // moved once (archived)
    const twice = rolloutPath(home); // archived, then moved to another day
    const back = rolloutPath(home); // archived, then moved back
    const taken = rolloutPath(home); // archived while a new file takes its old name
    const linked = rolloutPath(home); // hard-linked into archived_sessions
    const files = [once, twice, back, taken, linked];
    for (const [i, f] of files.entries()) writeFileSync(f.path, codexLine(`first word${i}`) + codexLine(`second word${i}`, 1));

    // Process 1: five sources.
    await ingest(env);
    assertStore(home, files.map((f) => ({ path: f.path, bytes: readFileSync(f.path) })), [], 'process 1');

    // Moves; the moved files grow; a new file takes one old name; a second name for one file.
    renameSync(once.path, archived(once.name));
    renameSync(twice.path, archived(twice.name));
    appendFileSync(archived(twice.name), codexLine('after the first move', 2));
    renameSync(back.path, archived(back.name));
    renameSync(taken.path, archived(taken.name));
    writeFileSync(taken.path, codexLine('a new file under the old name', 3));
    linkSync(linked.path, archived(linked.name));
    const twiceElsewhere = join(home, '.codex', 'sessions', '2026', '01', '05', twice.name);
    // Every file now on disk (each is one source).
    const state = (): Array<{ path: string; bytes: Buffer }> =>
      [archived(once.name), archived(twice.name), twiceElsewhere, archived(back.name), back.path, archived(taken.name), taken.path, linked.path, archived(linked.name)]
        .filter((path) => existsSync(path))
        .map((path) => ({ path, bytes: readFileSync(path) }));

    // Processes 2 and 3: the same sources at their new paths, plus the new file and the second name.
    await ingest(env);
    assertStore(home, state(), [], 'process 2');
    await ingest(env);
    assertStore(home, state(), [], 'process 3');

    // Moved again, moved back, appended; the first name of the linked file deleted.
    mkdirSync(dirname(twiceElsewhere), { recursive: true });
    renameSync(archived(twice.name), twiceElsewhere);
    appendFileSync(twiceElsewhere, codexLine('after the second move', 4));
    renameSync(archived(back.name), back.path);
    appendFileSync(archived(once.name), codexLine('appended in the archive', 5));
    rmSync(linked.path);
    appendFileSync(archived(linked.name), codexLine('appended to the remaining name', 6));
    const afterDelete = state;
    // The deleted name's source stays, with what it captured.
    const gone = { path: linked.path, bytes: captured(home).find((s) => s.path === linked.path)?.generations.get(0) as Buffer };

    await ingest(env);
    assertStore(home, afterDelete(), [gone], 'process 4');
    await ingest(env);
    assertStore(home, afterDelete(), [gone], 'process 5');

    // A serve run, stopped and started again.
    await serveUntilIdle(home, env);
    assertStore(home, afterDelete(), [gone], 'serve');
    await serveUntilIdle(home, env);
    assertStore(home, afterDelete(), [gone], 'serve restarted');

    // Each line is found once per captured name: the moved files were not captured twice.
    const hits = await cliJson<{ hits: Array<{ conversation: string }> }>(['search', 'first word1', '--json'], env);
    assert.deepEqual(hits.hits.map((h) => h.conversation), [`codex:${twice.thread}`]);
    // `raw` finds a source by a path it had before it moved.
    const raw = await cli(['raw', twice.path], env);
    assert.equal(raw.code, 0, raw.stderr);
    assert.deepEqual(raw.stdout, readFileSync(twiceElsewhere));
  });

  it('loses and duplicates nothing when SIGKILLed at random moments after rollouts were archived', async () => {
    const home = tempDir();
    const env = envFor(home);
    mkdirSync(join(home, '.codex', 'archived_sessions'), { recursive: true });
    const random = prng(1010);
    const rollouts = Array.from({ length: 24 }, () => rolloutPath(home));
    for (const [i, r] of rollouts.entries()) writeFileSync(r.path, Array.from({ length: 40 }, (_, k) => codexLine(`rollout${i} line${k} ${'text '.repeat(Math.floor(random() * 400))}`, k)).join(''));
    await ingest(env);
    // Every archived rollout grows after its move (about 256 KiB, four chunks), so the runs
    // below have moves to recognise and appended chunks to capture.
    for (const [i, r] of rollouts.entries()) {
      renameSync(r.path, join(home, '.codex', 'archived_sessions', r.name));
      appendFileSync(join(home, '.codex', 'archived_sessions', r.name), Array.from({ length: 64 }, (_, k) => codexLine(`archived${i} later${k} ${'word '.repeat(800)}`, k)).join(''));
    }
    // Each run is killed after its first few commits: from the first moves it records to deep in the appends.
    let killed = 0;
    for (let i = 0; i < 8; i++) if (await killAfterCommits(['ingest', '--once', '--pace', 'spec'], env, home, 1 + Math.floor(random() * 4))) killed++;
    assert.ok(killed >= 6, `most runs were killed mid-way (${killed} of 8)`);
    await ingest(env);
    await ingest(env);
    assertStore(
      home,
      rollouts.map((r) => {
        const path = join(home, '.codex', 'archived_sessions', r.name);
        return { path, bytes: readFileSync(path) };
      }),
      [],
      'after the kills',
    );
  });
});
