// get_conversation: records in increasing id order; paging with limit 1
// yields strictly increasing `next`; the decoded raw of all pages,
// concatenated per (source, generation) in offset order, equals each source
// file's bytes; `text` is the UTF-8 decode of `raw`; pages keep to the raw
// byte budget; an unknown id is an empty page. Also through the CLI
// (`conversation --all --raw` writes exact bytes).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { PAGE_RAW_BUDGET, type ConversationRecord } from '../protocols/search.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { HistoryReader } from '../src/read/history-reader.ts';
import { pageSpan } from '../src/store/conversation-page.ts';
import { cli } from './helpers/home.ts';
import { type FixtureHome, fixtureHome } from './helpers/search-homes.ts';

async function allPages(reader: HistoryReader, id: string, limit: number): Promise<{ records: ConversationRecord[]; nexts: number[] }> {
  const records: ConversationRecord[] = [];
  const nexts: number[] = [];
  let after = 0;
  for (;;) {
    const page = await reader.getConversation({ id, after, limit });
    assert.ok(page.records.length <= limit);
    records.push(...page.records);
    if (page.next === null) return { records, nexts };
    assert.equal(page.next, page.records.at(-1)?.id, 'next is the last id of the page');
    nexts.push(page.next);
    after = page.next;
  }
}

describe('get_conversation paging', () => {
  let fixture: FixtureHome;
  let reader: HistoryReader;
  let conversations: string[];
  let sources: Array<{ id: string; path: string; conversation: string }>;

  before(async () => {
    fixture = await fixtureHome({ fts: true });
    reader = new HistoryReader(resolvePaths(fixture.env));
    const db = new Database(resolvePaths(fixture.env).historyDb, { readonly: true });
    conversations = db.prepare('SELECT id FROM conversations ORDER BY id').pluck().all() as string[];
    sources = db.prepare('SELECT id, path, conversation FROM conversation_sources').all() as typeof sources;
    db.close();
  });
  after(() => reader.close());

  test('limit 1: strictly increasing next; raw per (source, generation) equals the file bytes', async () => {
    assert.ok(conversations.length >= 10);
    const bySource = new Map<string, ConversationRecord[]>();
    for (const id of conversations) {
      const { records, nexts } = await allPages(reader, id, 1);
      assert.ok(records.length > 0, `${id} has records`);
      for (let i = 1; i < nexts.length; i++) assert.ok((nexts[i] as number) > (nexts[i - 1] as number), `${id}: next increases`);
      for (let i = 1; i < records.length; i++) assert.ok((records[i] as ConversationRecord).id > (records[i - 1] as ConversationRecord).id);
      for (const record of records) {
        const raw = Buffer.from(record.raw, 'base64');
        assert.equal(record.text, new TextDecoder().decode(raw), 'text is the UTF-8 decode of raw');
        const key = `${record.source}\0${record.generation}`;
        bySource.set(key, [...(bySource.get(key) ?? []), record]);
      }
    }
    let files = 0;
    for (const source of sources) {
      const records = (bySource.get(`${source.id}\0${0}`) ?? []).sort((a, b) => a.offset - b.offset);
      const bytes = Buffer.concat(records.map((r) => Buffer.from(r.raw, 'base64')));
      assert.ok(bytes.equals(readFileSync(source.path)), `${source.path} reassembles byte-exactly`);
      files++;
    }
    assert.equal(files, sources.length);
    assert.ok([...bySource.values()].some((records) => records.length > 3), 'some source spans several records');
  });

  test('default pages hold at most 20 records and 512 KiB of raw bytes, and return the same records', async () => {
    for (const id of conversations) {
      const paged = await allPages(reader, id, 20);
      const single = await allPages(reader, id, 1);
      assert.deepEqual(
        paged.records.map((r) => r.id),
        single.records.map((r) => r.id),
      );
      let after = 0;
      for (;;) {
        const page = await reader.getConversation({ id, after });
        const bytes = page.records.reduce((n, r) => n + Buffer.byteLength(r.raw, 'base64'), 0);
        assert.ok(page.records.length <= 20);
        assert.ok(bytes <= PAGE_RAW_BUDGET || page.records.length === 1, `${id}: ${bytes} raw bytes in ${page.records.length} records`);
        if (page.next === null) break;
        after = page.next;
      }
    }
  });

  test('the byte budget: a page stops before exceeding it; one larger record comes alone', () => {
    const kib = 1024;
    assert.deepEqual(pageSpan([{ id: 1, size: 300 * kib }, { id: 2, size: 300 * kib }], 20), { count: 1, more: true });
    assert.deepEqual(pageSpan([{ id: 1, size: 600 * kib }, { id: 2, size: 1 }], 20), { count: 1, more: true });
    assert.deepEqual(pageSpan([{ id: 1, size: 256 * kib }, { id: 2, size: 256 * kib }], 20), { count: 2, more: false });
    assert.deepEqual(pageSpan([{ id: 1, size: 1 }, { id: 2, size: 1 }, { id: 3, size: 1 }], 2), { count: 2, more: true });
  });

  test('the conversation metadata; an unknown id is an empty page; after past the end is empty', async () => {
    const id = conversations.find((c) => c.includes(':native:')) as string;
    const page = await reader.getConversation({ id, limit: 5 });
    assert.equal(page.conversation?.id, id);
    assert.equal(page.conversation?.agent, 'claude');
    assert.ok(page.conversation?.parent?.startsWith('claude:'));
    assert.deepEqual(await reader.getConversation({ id: 'claude:no-such-session' }), { conversation: null, records: [], next: null });
    const last = (await allPages(reader, id, 100)).records.at(-1)?.id as number;
    assert.deepEqual((await reader.getConversation({ id, after: last })).records, []);
  });

  test('bad input is refused with the field and the reason', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /id: /],
      [{ id: '' }, /id: must not be empty/],
      [{ id: 'x'.repeat(513) }, /id: must be at most 512 characters/],
      [{ id: 'claude:x', after: -1 }, /after: must be >= 0/],
      [{ id: 'claude:x', after: 1.5 }, /after: must be an integer/],
      [{ id: 'claude:x', limit: 0 }, /limit: must be at least 1/],
      [{ id: 'claude:x', limit: 101 }, /limit: must be at most 100/],
      [{ id: 'claude:x', cursor: 3 }, /unknown field "cursor"/],
      ['claude:x', /expected object/i],
    ];
    for (const [input, reason] of cases) {
      await assert.rejects(reader.getConversation(input), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'BAD_INPUT');
        assert.match(error.message, reason);
        return true;
      });
    }
  });

  test('CLI: --all --raw writes exact bytes; --json pages; unknown ids print an empty page', async () => {
    const source = sources.find((s) => s.path.endsWith('.jsonl') && readFileSync(s.path).length > 200 * 1024) as (typeof sources)[number];
    const raw = await cli(['conversation', source.conversation, '--all', '--raw', '--limit', '3'], fixture.env);
    assert.equal(raw.code, 0, raw.stderr);
    // The conversation's records in id order: this file's bytes are a contiguous run of them.
    assert.ok(raw.stdout.includes(readFileSync(source.path)), 'the raw output contains the file bytes unchanged');
    const json = await cli(['conversation', source.conversation, '--limit', '2', '--json'], fixture.env);
    assert.equal(json.code, 0, json.stderr);
    const page = JSON.parse(json.stdout.toString('utf8')) as { records: unknown[]; next: number | null };
    assert.equal(page.records.length, 2);
    assert.equal(typeof page.next, 'number');
    const unknown = await cli(['conversation', 'codex:nothing', '--json'], fixture.env);
    assert.deepEqual(JSON.parse(unknown.stdout.toString('utf8')), { conversation: null, records: [], next: null });
    const bad = await cli(['conversation', 'codex:x', '--limit', '0'], fixture.env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--limit must be between 1 and 100/);
  });
});
