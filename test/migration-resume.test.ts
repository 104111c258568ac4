// Resuming against a changed source. The broker (and an old pinned 0.29.x
// worker) keep writing bridge.db between runs:
// - a mutable legacy table that changed after its snapshot is snapshotted
//   again from the new view; its first generation stays in the snapshot file
//   as `retained_<table>_g0` (never dropped);
// - a legacy record appended after the snapshot arrives through tail replay,
//   with its bytes checked, and a second replay adds nothing.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { legacyHome } from './helpers/legacy-home.ts';
import { digests, migrationRow, openRead, snapshotFiles, tableNames } from './helpers/migration-db.ts';
import { migrate } from './helpers/migrate.ts';

test('a mutable table changed between runs is snapshotted again, its previous generation retained; a late append arrives by tail replay', async (t) => {
  const home = await legacyHome();
  t.after(() => home.cleanup());
  const bridge = home.manifest.databases['bridge.db'];
  const bridgeDb = join(home.home, 'bridge.db');
  const historyDb = join(home.home, 'history.db');

  // Run 1 stops inside the snapshot of history_tags (history_cursors is already in the snapshot).
  const first = await migrate(home, { stopAt: { kind: 'snapshot', table: 'history_tags', count: 3 } });
  assert.equal(first.phase, 'snapshot');
  const [snapshotName] = snapshotFiles(home.home);

  // The broker moves a cursor (a mutable table already snapshotted).
  const broker = new Database(bridgeDb);
  broker.prepare("UPDATE history_cursors SET cursor = cursor || ':moved' WHERE rowid = (SELECT min(rowid) FROM history_cursors)").run();
  broker.close();

  // Run 2 revalidates against the new view, then stops in the copy pass.
  const second = await migrate(home, { stopAt: { kind: 'copy', count: 5 } });
  assert.equal(second.phase, 'copy');

  // The old worker appends a record (and a conversation) after the snapshot.
  const old = new Database(bridgeDb);
  const conversation = 'claude:late-session-0001';
  old.prepare("INSERT INTO conversations (id, agent, session, project, kind) VALUES (?, 'claude', 'late-session-0001', '', 'transcript')").run(conversation);
  const lateRaw = Buffer.concat([Buffer.from('{"type":"user","message":{"content":"latetailheron"}}'), Buffer.from([0x00, 0xff]), Buffer.from('\n')]);
  const lateId = Number(
    old.prepare("INSERT INTO conversation_records (source, generation, offset, conversation, at, raw, body, part) VALUES ('/home/fixture/late.jsonl', 0, 0, ?, 1773400000000, ?, 'latetailheron', NULL)").run(conversation, lateRaw).lastInsertRowid,
  );
  old.close();

  // Run 3 finishes and replays the tail.
  const third = await migrate(home);
  assert.equal(third.phase, 'verified');
  assert.equal(third.tail.replayed, 1);
  assert.deepEqual(snapshotFiles(home.home).filter((f) => !/-mj[0-9A-F]+$/.test(f)), [snapshotName, `${snapshotName}.progress.db`]);

  // The changed table: history.db holds the new content; the snapshot retains generation 0 (the fixture's content).
  const snapshot = join(home.home, '.migration-snapshots', snapshotName as string);
  assert.ok(tableNames(snapshot).includes('retained_history_cursors_g0'));
  const [now] = Object.values(await digests(bridgeDb, ['history_cursors']));
  assert.notEqual(now?.sha256, bridge.tables.history_cursors?.sha256);
  assert.deepEqual((await digests(historyDb, ['history_cursors'])).history_cursors, now);
  assert.deepEqual((await digests(snapshot, ['retained_history_cursors_g0'])).retained_history_cursors_g0, {
    rows: bridge.tables.history_cursors?.rows,
    sha256: bridge.tables.history_cursors?.sha256,
  });
  const manifest = migrationRow(historyDb)?.manifest as { tables: Record<string, { generation: number }>; retained: Array<{ name: string; retainedAs: string }> };
  assert.equal(manifest.tables.history_cursors?.generation, 1);
  assert.deepEqual(manifest.retained.map((r) => r.retainedAs), ['retained_history_cursors_g0']);

  // Every other table equals the fixture, except the two the late append touched.
  const untouched = bridge.legacyHistoryTables.filter((n) => !['history_cursors', 'conversations', 'conversation_records'].includes(n));
  const copied = await digests(historyDb, untouched);
  for (const name of untouched) assert.deepEqual(copied[name], { rows: bridge.tables[name]?.rows, sha256: bridge.tables[name]?.sha256 }, name);

  // The tail record: same bytes, mapped in history_legacy_tail; the legacy rows below it are untouched.
  const db = openRead(historyDb);
  const tail = db.prepare('SELECT source_id, target_id FROM history_legacy_tail').all() as Array<{ source_id: number; target_id: number }>;
  assert.deepEqual(tail.map((r) => r.source_id), [lateId]);
  const copiedLate = db.prepare('SELECT raw, conversation FROM conversation_records WHERE id = ?').get(tail[0]?.target_id) as { raw: Buffer; conversation: string };
  assert.ok(copiedLate.raw.equals(lateRaw));
  assert.equal(copiedLate.conversation, conversation);
  assert.equal(db.prepare('SELECT count(*) FROM conversations WHERE id = ?').pluck().get(conversation), 1);
  const records = db.prepare('SELECT count(*) FROM conversation_records').pluck().get();
  db.close();
  const recordRows = bridge.tables.conversation_records?.rows ?? 0;
  assert.equal(records, recordRows + 1);

  // A second replay does nothing.
  const fourth = await migrate(home);
  assert.equal(fourth.phase, 'verified');
  assert.equal(fourth.tail.replayed, 0);
  const again = openRead(historyDb);
  assert.equal(again.prepare('SELECT count(*) FROM conversation_records').pluck().get(), recordRows + 1);
  assert.equal(again.prepare('SELECT count(*) FROM history_legacy_tail').pluck().get(), 1);
  again.close();
});

test('a bridge home moved in the middle of the migration resumes with its own snapshot', async (t) => {
  const home = await legacyHome();
  t.after(() => home.cleanup());
  assert.equal((await migrate(home, { stopAt: { kind: 'copy', count: 3 } })).phase, 'copy');
  const moved = join(home.root, 'moved-home');
  renameSync(home.home, moved);
  const env = { ...home.env, AGENT_BRIDGE_HOME: moved };
  const done = await migrate(home, { env });
  assert.equal(done.phase, 'verified');
  assert.equal(done.snapshot, join(moved, '.migration-snapshots', snapshotFiles(moved)[0] as string));
  const bridge = home.manifest.databases['bridge.db'];
  const copied = await digests(join(moved, 'history.db'), bridge.legacyHistoryTables);
  for (const name of bridge.legacyHistoryTables) assert.deepEqual(copied[name], { rows: bridge.tables[name]?.rows, sha256: bridge.tables[name]?.sha256 }, name);
});
