// A 0.29.10 home (bridge.db user_version 6): no conversation tables, so no
// envelope keys and no triggers filling them. Messages are keyed by their
// row's (id, recipient) (messages:<id>:<recipient>, the same keys), found by
// a rowid scan (cursor bridge-messages) and by the sweep, which also finds a
// row on a rowid reused behind the scan cursor and a row claimed after it was
// captured. Captured from an empty history.db; the broker is played by the test.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { bridgeEnv, generateBridgeHome, ingest, prepareHistory, versions, withBroker, withHistory, type BridgeManifest } from './helpers/bridge.ts';

function send(db: Database.Database, recipient: string, body: string): { id: string; rowid: number } {
  const id = randomUUID();
  const info = db
    .prepare(
      "INSERT INTO messages (id, recipient, from_id, from_name, from_agent, to_target, conversation_id, reply_to, hop, body, created_at, read_at) VALUES (?, ?, 'peer-2', 'codex-orchard', 'codex', ?, ?, NULL, 0, ?, ?, NULL)",
    )
    .run(id, recipient, recipient, randomUUID(), body, Date.now());
  return { id, rowid: Number(info.lastInsertRowid) };
}

describe('a 0.29.10 home without envelope keys (v6)', () => {
  let dir: string;
  let manifest: BridgeManifest;
  let first: { id: string; rowid: number };
  let reused: { id: string; rowid: number };
  let queued: { id: string; rowid: number };
  let claimMe: { id: string; rowid: number };

  before(async () => {
    ({ dir, manifest } = generateBridgeHome({ userVersion: 6 }));
    prepareHistory(dir);
    const env = bridgeEnv(dir);
    const broker = (act: (db: Database.Database, archive: Database.Database) => void): void => {
      const db = new Database(join(dir, 'bridge.db'));
      const archive = new Database(join(dir, 'archive.db'));
      try {
        act(db, archive);
      } finally {
        db.close();
        archive.close();
      }
    };
    await ingest(env);
    broker((db) => {
      first = send(db, 'claude-orchard', 'A new row v6firstpelican');
      claimMe = send(db, 'agent:codex', 'Any codex: v6claimedheron');
      queued = send(db, 'agent:claude', 'Any claude, archived before anyone claims it: v6queuedotter');
    });
    await ingest(env);
    broker((db, archive) => {
      const row = db.prepare('SELECT * FROM messages WHERE id = ?').get(queued.id) as Record<string, unknown>;
      archive.prepare('INSERT INTO messages VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)').run(...Object.values(row), 'expired', Date.now());
      db.prepare('DELETE FROM messages WHERE id = ?').run(queued.id);
      reused = send(db, 'claude-orchard', 'On a reused rowid behind the scan cursor v6reusedfinch');
      db.prepare("UPDATE OR IGNORE messages SET recipient = 'codex-orchard' WHERE recipient = 'agent:codex' AND read_at IS NULL").run();
    });
    await ingest(env);
  });

  it('retains every live and archived row of the fixture under its (id, recipient) key, byte-exactly', () => {
    const expected = manifest.expected.bridgeRecords;
    withHistory(dir, (db) => {
      for (const m of expected.messages) {
        const kept = versions(db, `messages:${m.id}:${m.recipient}`);
        assert.ok(kept.length >= 1, `${m.kind} ${m.id}`);
        const parsed = JSON.parse(String(kept[0])) as { id: string; recipient: string };
        assert.equal(parsed.id, m.id);
        assert.equal(parsed.recipient, m.recipient);
      }
      const live = withBroker(join(dir, 'bridge.db'), (b) => b.prepare('SELECT * FROM messages WHERE id IN (SELECT id FROM messages ORDER BY rowid LIMIT 3)').all() as Array<{ id: string; recipient: string }>);
      for (const row of live) assert.deepEqual(versions(db, `messages:${row.id}:${row.recipient}`), [Buffer.from(JSON.stringify(row))]);
      assert.equal(db.prepare("SELECT count(DISTINCT source) FROM conversation_records WHERE source LIKE 'decisions:%'").pluck().get(), expected.summary.decisionRevisions);
    });
  });

  it('keeps the fixture\'s archived row and the new row on its reused rowid apart', () => {
    const { archived, reused: fixtureReused } = manifest.expected.bridgeRecords.rowidReuse;
    withHistory(dir, (db) => {
      assert.match(String(versions(db, `messages:${archived.id}:${archived.recipient}`)[0]), /rowidarchivedstoat/);
      assert.match(String(versions(db, `messages:${fixtureReused.id}:${fixtureReused.recipient}`)[0]), /rowidreusequail/);
    });
  });

  it('finds a row on a rowid reused behind the scan cursor, and a row claimed after capture', () => {
    assert.equal(reused.rowid, queued.rowid, 'the test made the broker reuse a rowid');
    withHistory(dir, (db) => {
      assert.equal(versions(db, `messages:${reused.id}:claude-orchard`).length, 1, 'the reused rowid\'s row');
      assert.equal(versions(db, `messages:${first.id}:claude-orchard`).length, 1);
      assert.match(String(versions(db, `messages:${claimMe.id}:agent:codex`)[0]), /"recipient":"agent:codex"/, 'the queue key, as first seen');
      assert.match(String(versions(db, `messages:${claimMe.id}:codex-orchard`)[0]), /"recipient":"codex-orchard"/, 'the claimed row');
      const queue = versions(db, `messages:${queued.id}:agent:claude`);
      assert.equal(queue.length, 1, 'the archived queued row, once');
      assert.match(String(queue[0]), /v6queuedotter/);
      const cursor = JSON.parse(db.prepare("SELECT cursor FROM history_cursors WHERE source = 'bridge-messages'").pluck().get() as string) as { after: number };
      assert.ok(cursor.after >= queued.rowid);
      assert.equal(db.prepare("SELECT count(*) FROM history_cursors WHERE source = 'durable-envelope-keys'").pluck().get(), 0, 'no envelope cursor without envelope keys');
    });
  });
});
