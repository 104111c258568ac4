// Message rows that change after they were captured (a 0.29.17 home, v8,
// captured from an empty history.db): the broker, played by this test,
// writes bridge.db and archive.db as it would (its triggers fill the
// envelope keys), between ingest runs. Every observed version is kept; a
// rowid reused after archival neither overwrites nor hides the archived
// message; running again adds nothing.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { bridgeEnv, generateBridgeHome, ingest, prepareHistory, versions, withHistory } from './helpers/bridge.ts';

interface MessageRow {
  id: string;
  recipient: string;
  read_at: number | null;
  body: string;
}

/** The broker's side: writes as agent-bridge 0.29.17 does (WAL, busy timeout, its own triggers). */
function broker<T>(dir: string, act: (db: Database.Database, archive: Database.Database) => T): T {
  const db = new Database(join(dir, 'bridge.db'));
  const archive = new Database(join(dir, 'archive.db'));
  try {
    for (const d of [db, archive]) d.pragma('busy_timeout = 3000');
    return act(db, archive);
  } finally {
    db.close();
    archive.close();
  }
}

function send(db: Database.Database, recipient: string, body: string, at: number): string {
  const id = randomUUID();
  db.prepare(
    "INSERT INTO messages (id, recipient, from_id, from_name, from_agent, to_target, conversation_id, reply_to, hop, body, created_at, read_at) VALUES (?, ?, 'peer-1', 'claude-orchard', 'claude', ?, ?, NULL, 0, ?, ?, NULL)",
  ).run(id, recipient, recipient, randomUUID(), body, at);
  return id;
}

describe('changed message rows keep every observed version (v8 home, empty history.db)', () => {
  let dir: string;
  const ids: Record<string, string> = {};
  let broadcast: MessageRow;
  let afterFirst = 0;

  before(async () => {
    ({ dir } = generateBridgeHome());
    prepareHistory(dir);
    const env = bridgeEnv(dir);
    await ingest(env);
    broker(dir, (db) => {
      broadcast = db.prepare("SELECT * FROM messages WHERE to_target = '*' AND read_at IS NULL").get() as MessageRow;
      const at = Date.now();
      ids.queued = send(db, 'agent:codex', 'Whoever is free: rebuild the index. versionqueuedheron', at);
      ids.doomed = send(db, 'codex-orchard', 'About to expire versiondoomedwren', at + 1);
    });
    await ingest(env);
    afterFirst = withHistory(dir, (db) => db.prepare('SELECT count(*) FROM conversation_records').pluck().get() as number);
    broker(dir, (db, archive) => {
      const now = Date.now();
      db.prepare('UPDATE messages SET read_at = ? WHERE id = ? AND recipient = ?').run(now, broadcast.id, broadcast.recipient);
      db.prepare("UPDATE OR IGNORE messages SET recipient = 'codex-orchard' WHERE recipient = 'agent:codex' AND read_at IS NULL").run();
      // Archival as 0.29 does it: copy into archive.db first, then delete; the next insert reuses the rowid.
      const row = db.prepare('SELECT rowid AS r, * FROM messages WHERE id = ?').get(ids.doomed) as Record<string, unknown> & { r: number };
      ids.doomedRowid = String(row.r);
      archive.prepare('INSERT OR IGNORE INTO messages VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)').run(
        row.id, row.recipient, row.from_id, row.from_name, row.from_agent, row.to_target, row.conversation_id, row.reply_to, row.hop, row.body, row.created_at, row.read_at, 'expired', now,
      );
      db.prepare('DELETE FROM messages WHERE id = ?').run(ids.doomed);
      ids.reuse = send(db, 'claude-orchard', 'Fresh message on the same rowid versionreusedlark', now + 2);
      const reused = db.prepare('SELECT rowid FROM messages WHERE id = ?').pluck().get(ids.reuse);
      assert.equal(String(reused), ids.doomedRowid, 'the new row reuses the archived row\'s rowid');
    });
    await ingest(env);
  });

  it('keeps both versions of a broadcast copy that was read later', () => {
    withHistory(dir, (db) => {
      const kept = versions(db, `messages:${broadcast.id}:${broadcast.recipient}`).map((raw) => JSON.parse(String(raw)) as MessageRow);
      assert.equal(kept.length, 2);
      assert.equal(kept[0]?.read_at, null);
      assert.equal(typeof kept[1]?.read_at, 'number');
      assert.equal(kept[0]?.body, kept[1]?.body);
    });
  });

  it('keeps a queued message under its queue key and, once claimed, under its recipient', () => {
    withHistory(dir, (db) => {
      const queue = versions(db, `messages:${ids.queued}:agent:codex`).map((raw) => JSON.parse(String(raw)) as MessageRow);
      const claimed = versions(db, `messages:${ids.queued}:codex-orchard`).map((raw) => JSON.parse(String(raw)) as MessageRow);
      assert.deepEqual(queue.map((m) => m.recipient), ['agent:codex']);
      assert.deepEqual(claimed.map((m) => m.recipient), ['codex-orchard']);
    });
  });

  it('keeps an archived message and the new message on its reused rowid apart', () => {
    withHistory(dir, (db) => {
      const doomed = versions(db, `messages:${ids.doomed}:codex-orchard`);
      const reuse = versions(db, `messages:${ids.reuse}:claude-orchard`);
      assert.equal(doomed.length, 1, 'the archived copy is the version already retained');
      assert.match(String(doomed[0]), /versiondoomedwren/);
      assert.equal(reuse.length, 1);
      assert.match(String(reuse[0]), /versionreusedlark/);
      const found = db.prepare("SELECT count(*) FROM history_fts WHERE history_fts MATCH '\"versiondoomedwren\"'").pluck().get();
      assert.equal(found, 1, 'the archived message stays searchable');
    });
  });

  it('adds nothing when run again', async () => {
    const before2 = withHistory(dir, (db) => db.prepare('SELECT count(*) FROM conversation_records').pluck().get() as number);
    assert.ok(before2 > afterFirst);
    await ingest(bridgeEnv(dir));
    withHistory(dir, (db) => assert.equal(db.prepare('SELECT count(*) FROM conversation_records').pluck().get(), before2));
  });
});
