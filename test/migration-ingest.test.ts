// After the migration, ingestion continues from the migrated cursors: a
// Claude transcript the 0.29.17 worker had partly captured into bridge.db
// (conversation_sources: path id, generation 0, offset, identity, anchor) is
// captured on from that offset by our pipeline, with no new generation and
// no byte captured twice. Later, an old pinned worker appends a legacy
// record whose id our ingestion already used: tail replay copies it under a
// new id (history_legacy_tail maps it), and a second replay adds nothing.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { resolvePaths } from '../src/config/paths.ts';
import { retainedChunks } from '../src/store/records.ts';
import { search } from '../src/store/search.ts';
import { legacyHome } from './helpers/legacy-home.ts';
import { cli } from './helpers/home.ts';
import { openRead } from './helpers/migration-db.ts';
import { migrate } from './helpers/migrate.ts';

const SESSION = '7f3c2a10-0b1d-4c55-9e21-5d4a3b2c1e0f';

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

test('ingestion continues from the migrated cursors; a colliding late legacy record is remapped once', async (t) => {
  const home = await legacyHome();
  t.after(() => home.cleanup());
  const paths = resolvePaths(home.env);

  // A transcript of which the legacy worker captured the first two lines.
  const dir = join(home.env.CLAUDE_CONFIG_DIR as string, 'projects', '-work-lantern');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${SESSION}.jsonl`);
  const base = { sessionId: SESSION, cwd: '/work/lantern', type: 'user' };
  const captured = line({ ...base, uuid: 'u1', timestamp: '2026-03-01T10:00:00Z', message: { role: 'user', content: 'legacyprefixowl first' } }) +
    line({ ...base, uuid: 'u2', timestamp: '2026-03-01T10:01:00Z', message: { role: 'user', content: 'legacyprefixowl second' } });
  const appended = line({ ...base, uuid: 'u3', timestamp: '2026-03-02T09:00:00Z', message: { role: 'user', content: 'continuedcapturefinch after the upgrade' } });
  writeFileSync(file, captured + appended);
  const prefix = Buffer.from(captured);
  const stat = statSync(file);

  const conversation = `claude:${SESSION}`;
  const old = new Database(paths.bridgeDb);
  old.prepare("INSERT INTO conversations (id, agent, session, parent, project, job, kind) VALUES (?, 'claude', ?, NULL, '/work/lantern', NULL, 'transcript')").run(conversation, SESSION);
  old
    .prepare("INSERT INTO conversation_sources (id, path, conversation, format, generation, offset, identity, anchor, checked) VALUES (?, ?, ?, 'jsonl', 0, ?, ?, ?, 1)")
    .run(file, file, conversation, prefix.length, `${stat.dev}:${stat.ino}:${stat.birthtimeMs}`, createHash('sha256').update(prefix.subarray(-64)).digest('hex'));
  const legacyId = Number(
    old.prepare('INSERT INTO conversation_records (source, generation, offset, conversation, at, raw, body, part) VALUES (?, 0, 0, ?, ?, ?, ?, NULL)').run(file, conversation, stat.mtimeMs, prefix, captured)
      .lastInsertRowid,
  );
  old.close();

  const run = await cli(['ingest', '--once', '--pace', 'max', '--json'], home.env);
  assert.equal(run.code, 0, run.stderr);

  const db = openRead(paths.historyDb);
  const records = db.prepare('SELECT id, generation, offset, length(raw) AS bytes FROM conversation_records WHERE source = ? ORDER BY generation, offset').all(file) as Array<{
    id: number;
    generation: number;
    offset: number;
    bytes: number;
  }>;
  assert.deepEqual(records.map((r) => [r.generation, r.offset]), [
    [0, 0],
    [0, prefix.length],
  ]);
  assert.equal(records[0]?.id, legacyId, 'the migrated record keeps its id');
  const whole = Buffer.concat([...retainedChunks(db, file, 0)].map((c) => Buffer.from(c.raw)));
  assert.ok(whole.equals(Buffer.from(captured + appended)), 'generation 0 reassembles the file exactly');
  const source = db.prepare('SELECT generation, offset FROM conversation_sources WHERE id = ?').get(file);
  assert.deepEqual(source, { generation: 0, offset: Buffer.byteLength(captured + appended) });
  const found = search(db, { query: 'continuedcapturefinch', filters: {}, limit: 5 });
  assert.equal(found.hits[0]?.conversation, conversation);
  const newest = db.prepare('SELECT max(id) FROM conversation_records').pluck().get() as number;
  const total = db.prepare('SELECT count(*) FROM conversation_records').pluck().get() as number;
  db.close();
  assert.ok(newest > legacyId);

  // The old pinned worker appends a record whose id our ingestion already used.
  const pinned = new Database(paths.bridgeDb);
  const lateRaw = Buffer.from(line({ type: 'response_item', payload: { type: 'message', content: [{ type: 'output_text', text: 'pinnedtailgrebe' }] } }));
  pinned
    .prepare("INSERT INTO conversation_records (id, source, generation, offset, conversation, at, raw, body, part) VALUES (?, '/home/fixture/.codex/late.jsonl', 0, 0, ?, 1773600000000, ?, '', NULL)")
    .run(newest, conversation, lateRaw);
  pinned.close();

  const replay = await migrate(home);
  assert.equal(replay.phase, 'verified');
  assert.deepEqual([replay.tail.replayed, replay.tail.remapped], [1, 1]);
  const after = openRead(paths.historyDb);
  const mapping = after.prepare('SELECT source_id, target_id FROM history_legacy_tail').all() as Array<{ source_id: number; target_id: number }>;
  assert.equal(mapping.length, 1);
  assert.equal(mapping[0]?.source_id, newest);
  assert.notEqual(mapping[0]?.target_id, newest);
  const copied = after.prepare('SELECT raw FROM conversation_records WHERE id = ?').pluck().get(mapping[0]?.target_id) as Buffer;
  assert.ok(copied.equals(lateRaw));
  assert.equal(after.prepare('SELECT count(*) FROM conversation_records').pluck().get(), total + 1);
  after.close();

  const again = await migrate(home);
  assert.equal(again.tail.replayed, 0);
  const last = openRead(paths.historyDb);
  assert.equal(last.prepare('SELECT count(*) FROM conversation_records').pluck().get(), total + 1);
  assert.equal(last.prepare('SELECT count(*) FROM history_legacy_tail').pluck().get(), 1);
  last.close();
});
