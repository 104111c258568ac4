// A line caught half-written (issue 10 §2): while it is unfinished only its
// human text, as far as its JSON goes, is searchable (never its uuids,
// session id or timestamps); once complete the whole line is indexed as if
// read in one piece; `conversation` shows whole lines, not JSON fragments; a
// reindex derives the same. Also the partial JSON reader on its own.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { registerFunctions } from '../src/store/open.ts';
import { partialJson } from '../src/text/partial-json.ts';
import { cli, cliJson, envFor, tempDir } from './helpers/home.ts';
import { claudePath, codexLine, rolloutPath } from './helpers/rollouts.ts';
import { withStore } from './helpers/store.ts';

async function ingest(env: NodeJS.ProcessEnv): Promise<void> {
  const run = await cli(['ingest', '--once', '--pace', 'max'], env);
  assert.equal(run.code, 0, run.stderr);
}

async function hits(env: NodeJS.ProcessEnv, query: string): Promise<Array<{ conversation: string }>> {
  return (await cliJson<{ hits: Array<{ conversation: string }> }>(['search', query, '--json'], env)).hits;
}

/** Every document's text, stored or derived from its span (the index's content). */
function bodies(home: string): string[] {
  return withStore(home, (db) => {
    registerFunctions(db);
    return db.prepare("SELECT t.body FROM history_documents d JOIN history_document_text t ON t.doc = d.rowid WHERE d.id LIKE 'durable:%' ORDER BY t.body").pluck().all() as string[];
  });
}

describe('half-written lines', () => {
  it('index only human text while unfinished, the whole line once complete, and show whole lines', async () => {
    const home = tempDir();
    const env = envFor(home);
    const session = randomUUID();
    const path = claudePath(home, session);
    const parent = randomUUID();
    const uuid = randomUUID();
    const record = {
      parentUuid: parent,
      isSidechain: false,
      type: 'user',
      message: { role: 'user', content: 'headword zebracorn before the cut and tailword quokkaline after it' },
      uuid,
      timestamp: '2026-11-01T10:00:07.000Z',
      cwd: '/work/edit-project',
      sessionId: session,
    };
    const line = `${JSON.stringify(record)}\n`;
    const cut = line.indexOf('before the cut') + 'before the'.length;
    writeFileSync(path, `${JSON.stringify({ ...record, uuid: randomUUID(), message: { role: 'user', content: 'a complete first line' } })}\n${line.slice(0, cut)}`);

    // Unfinished: captured (a once run takes the tail), searchable by its text only.
    await ingest(env);
    assert.equal((await hits(env, 'zebracorn')).length, 1, 'the human text of the unfinished line is found');
    assert.deepEqual(await hits(env, parent), [], 'its parentUuid is not');
    assert.deepEqual(await hits(env, session), [], 'nor its sessionId');
    assert.ok(!bodies(home).some((b) => b.includes('parentUuid') || b.includes(parent) || b.includes('"type"')), 'no JSON metadata in any document');
    const unfinished = (await cli(['conversation', `claude:${session}`], env)).stdout.toString('utf8');
    assert.match(unfinished, /unfinished line: the rest was not written when it was captured/);

    // Completed: the whole line is indexed; its metadata still is not.
    appendFileSync(path, line.slice(cut));
    await ingest(env);
    assert.equal((await hits(env, 'quokkaline')).length, 1, 'the rest of the line is found');
    assert.equal((await hits(env, 'zebracorn quokkaline')).length, 1, 'words of both parts are found together, as one line');
    assert.equal((await hits(env, 'zebracorn')).length, 1, 'the line is one hit, not one per part');
    for (const meta of [uuid, parent, session, '2026-11-01T10:00:07']) assert.deepEqual(await hits(env, meta), [], `${meta} is not searchable`);
    const whole = (await cli(['conversation', `claude:${session}`], env)).stdout.toString('utf8');
    assert.ok(whole.includes(line), 'conversation shows the completed line in one piece');
    assert.doesNotMatch(whole, /unfinished line/);
    assert.match(whole, /the line goes on in a later record/, "the record holding its first part says where it is shown");
    assert.ok(!whole.includes(line.slice(0, cut) + '\n'), 'and not its first part as a fragment');

    // A reindex derives the same documents from the retained records.
    const before = bodies(home);
    const reindex = await cli(['reindex'], env);
    assert.equal(reindex.code, 0, reindex.stderr);
    assert.deepEqual(bodies(home), before, 'reindexed documents equal the captured ones');
  });

  it('keeps a Codex line that stays unfinished searchable by its text, not its timestamp or ids', async () => {
    const home = tempDir();
    const env = envFor(home);
    const rollout = rolloutPath(home);
    const text = codexLine('a complete line') + codexLine('payload words platypusque left unfinished', 9);
    writeFileSync(rollout.path, text.slice(0, text.lastIndexOf('unfinished')));
    await ingest(env);
    assert.equal((await hits(env, 'platypusque')).length, 1);
    assert.deepEqual(await hits(env, 'response_item'), [], 'record types are metadata');
    assert.deepEqual(await hits(env, '10:00:09'), [], 'the timestamp is metadata');
    assert.ok(!bodies(home).some((b) => b.includes('timestamp') || b.includes('input_text')));
  });

  it('reads a JSON text that stops part way as far as it goes', () => {
    assert.deepEqual(partialJson('{"a":"xy'), { a: 'xy' });
    assert.deepEqual(partialJson('{"a":{"b":[1,2,"t'), { a: { b: [1, 2, 't'] } });
    assert.deepEqual(partialJson('{"a":1,"b'), { a: 1 }, 'a key cut off is left out');
    assert.deepEqual(partialJson('{"a":1,"b":'), { a: 1 }, 'a key without its value is left out');
    assert.deepEqual(partialJson('{"a":12'), {}, 'a number that may be cut short is left out');
    assert.deepEqual(partialJson('{"a":tr'), {}, 'and so is a literal');
    assert.deepEqual(partialJson('{"a":"x\\u00e9y\\n\\u00'), { a: 'xéy\n' }, 'escapes decoded; one cut inside is left out');
    assert.deepEqual(partialJson('{"a":[true,null],"b":"c"}'), { a: [true, null], b: 'c' }, 'a whole text is read whole');
    assert.equal(partialJson('not json'), undefined);
    assert.equal(partialJson('"just a string'), undefined);
  });
});
