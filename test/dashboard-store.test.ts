// The store reads the dashboard adds, on a captured fixture home, against
// oracles computed from conversation_records directly: the stats table kept
// by its trigger and filled for older stores, pages read backward, a
// generation's bytes page by page, changes since a record, activity per day.
// And the client's transcript reader: where chunk boundaries fall never
// changes the entries a file gives.

import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { activity, changesSince, maxRecordId } from '../src/store/changes.ts';
import { conversationPage, conversationPageBefore } from '../src/store/conversation-page.ts';
import { historyDocument } from '../src/store/history-document.ts';
import { openReader, openWriter, type Db } from '../src/store/open.ts';
import { retainedChunks } from '../src/store/records.ts';
import { rawGenerationPage } from '../src/store/source-list.ts';
// @ts-expect-error the client is plain JavaScript (served as is to the browser)
import { TranscriptReader } from '../src/dashboard/assets/transcript.js';
import { documentsWithText } from './helpers/document-text.ts';
import { prng } from './helpers/home.ts';
import { fixtureHome, searchTempDir, type FixtureHome } from './helpers/search-homes.ts';

const STATS_ORACLE = `SELECT conversation, min(at) AS first_at, max(at) AS last_at, count(*) AS records, sum(length(raw)) AS bytes, max(id) AS last_id
  FROM conversation_records GROUP BY conversation ORDER BY conversation`;

describe('dashboard store reads', () => {
  let fixture: FixtureHome;
  let db: Db;

  before(async () => {
    fixture = await fixtureHome({ fts: true });
    db = openReader(join(fixture.bridgeHome, 'history.db')) as Db;
  });

  test('history_conversation_stats equals the aggregate of the records, and is filled when an older store is opened', () => {
    assert.deepEqual(db.prepare('SELECT * FROM history_conversation_stats ORDER BY conversation').all(), db.prepare(STATS_ORACLE).all());
    const copy = join(searchTempDir('stats'), 'history.db');
    copyFileSync(join(fixture.bridgeHome, 'history.db'), copy);
    const old = new Database(copy);
    old.exec('DROP TRIGGER history_conversation_stats_insert; DROP TABLE history_conversation_stats');
    old.close();
    const writer = openWriter(copy);
    try {
      assert.deepEqual(writer.prepare('SELECT * FROM history_conversation_stats ORDER BY conversation').all(), writer.prepare(STATS_ORACLE).all());
    } finally {
      writer.close();
    }
  });

  test('reading a conversation backward from its end gives the forward pages\' records, in order', () => {
    const conversations = db.prepare('SELECT conversation FROM history_conversation_stats WHERE records > 1').pluck().all() as string[];
    assert.ok(conversations.length >= 5);
    for (const id of conversations) {
      const forward: number[] = [];
      let after = 0;
      for (;;) {
        const page = conversationPage(db, { id, after, limit: 2 });
        forward.push(...page.records.map((r) => r.id));
        if (page.next === null) break;
        after = page.next;
      }
      const backward: number[] = [];
      let before: number | null = (forward.at(-1) as number) + 1;
      while (before !== null) {
        const page = conversationPageBefore(db, { id, before, limit: 2 });
        assert.ok(page.records.length >= 1 && page.records.length <= 2);
        backward.unshift(...page.records.map((r) => r.id));
        before = page.previous;
      }
      assert.deepEqual(backward, forward, id);
    }
  });

  test('a generation read page by page is its retained bytes', () => {
    const sources = db.prepare('SELECT DISTINCT source, generation FROM conversation_records').all() as Array<{ source: string; generation: number }>;
    for (const { source, generation } of sources) {
      const expected = Buffer.concat([...retainedChunks(db, source, generation)].map((c) => c.raw));
      const parts: Uint8Array[] = [];
      let from: number | null = 0;
      while (from !== null) {
        const page = rawGenerationPage(db, source, generation, from, 16 * 1024);
        parts.push(page.bytes);
        from = page.next;
      }
      assert.deepEqual(Buffer.concat(parts), expected, source);
    }
  });

  test('changes since a record name the conversations that gained records', () => {
    const max = maxRecordId(db);
    const since = max - 10;
    const changes = changesSince(db, since);
    assert.equal(changes.maxRecord, max);
    const expected = db.prepare('SELECT conversation AS id, max(id) AS lastRecord FROM conversation_records WHERE id > ? GROUP BY conversation ORDER BY lastRecord DESC').all(since);
    assert.deepEqual(changes.conversations, expected);
    assert.equal(changes.more, false);
    assert.deepEqual(changesSince(db, max), { maxRecord: max, conversations: [], more: false });
  });

  test('activity counts each captured line once, on its UTC day', () => {
    const now = Date.UTC(2026, 2, 20);
    const out = activity(db, now);
    const total = Object.values(out.series).reduce((n, days) => n + days.reduce((a, b) => a + b, 0), 0);
    const expected = db.prepare('SELECT count(*) FROM history_documents WHERE at >= ? AND at < ?').pluck().get(out.from, out.from + 90 * 86_400_000) as number;
    assert.ok(expected > 0);
    assert.equal(total, expected);
  });

  test('a document names its record; an unknown id is null', () => {
    const id = (db.prepare(`SELECT * FROM (${documentsWithText(db, 'd.id AS id')}) WHERE body LIKE '%glimmerquartz%' LIMIT 1`).get() as { id: string }).id;
    const doc = historyDocument(db, id);
    assert.ok(doc?.record);
    assert.match(doc.text, /glimmerquartz/, 'the document text (derived from the bytes for a span document)');
    const file = readFileSync(doc.record.source);
    const raw = Buffer.from(doc.record.raw, 'base64');
    assert.deepEqual(raw, file.subarray(doc.record.offset, doc.record.offset + raw.length));
    assert.equal(historyDocument(db, 'durable:999999999'), null);
  });

  test('the transcript reader gives the same entries wherever chunk boundaries fall', () => {
    const random = prng(13);
    const files = fixture.manifest.sources.filter((s) => s.kind.includes('claude') || s.kind.includes('codex')).filter((s) => s.path.endsWith('.jsonl'));
    assert.ok(files.length >= 6);
    let roles = new Set<string>();
    for (const source of files) {
      const bytes = readFileSync(join(fixture.home, source.path));
      const agent = source.path.includes('.codex') ? 'codex' : 'claude';
      const whole = entriesOf(agent, [bytes]);
      roles = new Set([...roles, ...whole.map((e) => e.role)]);
      for (let trial = 0; trial < 3; trial++) {
        const pieces: Buffer[] = [];
        for (let at = 0; at < bytes.length; ) {
          const size = 1 + Math.floor(random() * 9000);
          pieces.push(bytes.subarray(at, at + size));
          at += size;
        }
        assert.deepEqual(entriesOf(agent, pieces), whole, `${source.path} in ${pieces.length} pieces`);
      }
    }
    for (const role of ['user', 'assistant', 'tool-call', 'tool-result', 'reasoning', 'system']) assert.ok(roles.has(role), `some entry is ${role}`);
  });
});

interface Entry {
  readonly role: string;
  readonly title: string;
  readonly text: string;
  readonly line: number;
}

function entriesOf(agent: string, pieces: Buffer[]): Array<Pick<Entry, 'role' | 'title' | 'text' | 'line'>> {
  const reader = new TranscriptReader(agent);
  const out: Entry[] = [];
  let offset = 0;
  pieces.forEach((piece, i) => {
    out.push(...(reader.push({ id: i + 1, source: 's', generation: 0, offset, at: 0, raw: piece.toString('base64') }) as Entry[]));
    offset += piece.length;
  });
  out.push(...(reader.flushAll() as Entry[]));
  return out.map(({ role, title, text, line }) => ({ role, title, text, line }));
}
