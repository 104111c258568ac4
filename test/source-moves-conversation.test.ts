// A source keeps the conversation it was registered with when its file moves
// to a name that would classify as another conversation. The soak's case: a
// new file takes the name of a rollout that was archived (so it is registered
// as `<path>#2`, in the conversation that name's thread gives), and is then
// archived itself under a name of its own thread. Reindex derives documents
// from `conversation_sources.conversation`, so every record of a source must
// carry that conversation; a record captured under the new name's thread made
// the reindex's re-append find "a retained record that differs" and latch
// VERIFY_FAILED, stopping all capture.

import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cli, envFor, tempDir } from './helpers/home.ts';
import { codexLine, rolloutPath } from './helpers/rollouts.ts';
import { withStore } from './helpers/store.ts';

async function run(args: readonly string[], env: NodeJS.ProcessEnv, step: string): Promise<void> {
  const r = await cli(args, env);
  assert.equal(r.code, 0, `${step}: ${args.join(' ')} exits 0: ${r.stderr}`);
}

/** Records whose conversation is not the one their source row names (none may exist for a Codex rollout). */
function strayRecords(home: string): Array<{ source: string; offset: number; conversation: string; registered: string }> {
  return withStore(home, (db) =>
    db
      .prepare(
        `SELECT r.source AS source, r.offset AS offset, r.conversation AS conversation, s.conversation AS registered
         FROM conversation_records r JOIN conversation_sources s ON s.id = r.source
         WHERE r.conversation <> s.conversation ORDER BY r.source, r.generation, r.offset`,
      )
      .all() as Array<{ source: string; offset: number; conversation: string; registered: string }>,
  );
}

describe('a moved source', () => {
  it('keeps its conversation when it moves to a name of another thread, so reindex and capture go on', async () => {
    const home = tempDir();
    const env = envFor(home);
    const archivedDir = join(home, '.codex', 'archived_sessions');
    mkdirSync(archivedDir, { recursive: true });
    const first = rolloutPath(home);
    writeFileSync(first.path, codexLine('first rollout line', 0) + codexLine('first rollout second line', 1));
    await run(['ingest', '--once', '--pace', 'max'], env, 'process 1');

    // The rollout is archived and a new file takes its old name: a source `<path>#2`.
    renameSync(first.path, join(archivedDir, first.name));
    writeFileSync(first.path, codexLine('new file under the old name', 2));
    await run(['ingest', '--once', '--pace', 'max'], env, 'process 2');
    const taken = `${first.path}#2`;
    const registered = withStore(home, (db) => db.prepare('SELECT conversation FROM conversation_sources WHERE id = ?').pluck().get(taken) as string | undefined);
    assert.equal(registered, `codex:${first.thread}`, 'the new file is registered as <path>#2 in the conversation its name gives');

    // That file is archived under a name of another thread, and grows (captured in this process and after a restart).
    const other = rolloutPath(home);
    const moved = join(archivedDir, other.name);
    renameSync(first.path, moved);
    appendFileSync(moved, codexLine('appended after its move', 3));
    await run(['ingest', '--once', '--pace', 'max'], env, 'process 3');
    appendFileSync(moved, codexLine('appended after a restart', 4));
    await run(['ingest', '--once', '--pace', 'max'], env, 'process 4');

    const path = withStore(home, (db) => db.prepare('SELECT path FROM conversation_sources WHERE id = ?').pluck().get(taken) as string);
    assert.equal(path, moved, 'the moved file is still the source <path>#2');
    assert.deepEqual(strayRecords(home), [], 'every record carries its source row conversation');

    // Reindex re-appends every retained record through the commit code: it must find them identical.
    await run(['reindex'], env, 'reindex');
    appendFileSync(moved, codexLine('appended after the reindex', 5));
    await run(['ingest', '--once', '--pace', 'max', '--verify'], env, 'capture after the reindex');
    assert.deepEqual(strayRecords(home), [], 'every record carries its source row conversation after the reindex');
    // One record per process that found new bytes: the file's first line, then each line appended after it.
    const records = withStore(home, (db) => db.prepare('SELECT count(*) FROM conversation_records WHERE source = ? AND generation = 0').pluck().get(taken) as number);
    assert.equal(records, 4, 'the moved file is captured once, in generation 0');
    assert.equal(withStore(home, (db) => db.prepare('SELECT max(generation) FROM conversation_records WHERE source = ?').pluck().get(taken) as number), 0, 'no new generation');
  });

  it('reindexes a store whose records carry another conversation than their source row (written before that was kept)', async () => {
    const home = tempDir();
    const env = envFor(home);
    const a = rolloutPath(home);
    const b = rolloutPath(home);
    writeFileSync(a.path, codexLine('alpha line one', 0) + codexLine('alpha line two', 1));
    writeFileSync(b.path, codexLine('bravo line one', 2));
    await run(['ingest', '--once', '--pace', 'max'], env, 'capture');
    const documents = (): unknown => withStore(home, (db) => db.prepare("SELECT id, kind, agent, at FROM history_documents WHERE id LIKE 'durable:%' ORDER BY id").all());
    const before = documents();
    // Such a store: a's row names b's conversation while a's records carry a's own (records themselves never change).
    const db = new Database(join(home, '.agent-bridge', 'history.db'));
    try {
      assert.equal(db.prepare('UPDATE conversation_sources SET conversation = ? WHERE id = ?').run(`codex:${b.thread}`, a.path).changes, 1);
    } finally {
      db.close();
    }
    await run(['reindex'], env, 'reindex');
    assert.deepEqual(documents(), before, 'the reindex derives the documents the records were captured as');
    const stray = strayRecords(home);
    assert.ok(stray.length > 0, "a's records are still there");
    assert.deepEqual(stray.map((r) => [r.source, r.conversation]), stray.map(() => [a.path, `codex:${a.thread}`]), "a's records keep the conversation they were captured in");
  });
});
