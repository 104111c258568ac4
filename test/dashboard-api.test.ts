// The dashboard's JSON API over real HTTP, against the MCP tools on the same
// home: the same inputs give the same outputs (search_history,
// get_conversation), and the same bad inputs are refused, as 400
// {error: {code, message}} naming the field. Also the dashboard's own
// routes: the conversation list (keyset pages that add up to every
// conversation, filters), a hit's history document, sources with their
// generations and the exact bytes of each, and a legacy home read before
// its migration.

import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp } from './helpers/mcp.ts';
import type { ConversationListOutput, HistoryDocument, SourceListOutput } from '../protocols/dashboard.ts';
import type { GetConversationOutput, SearchHistoryOutput } from '../protocols/search.ts';
import { sha256 } from './helpers/home.ts';
import { bearer, http, startDashboardProcess, type RunningDashboard } from './helpers/dashboard.ts';
import { fixtureHome, legacyBridgeHome, type FixtureHome } from './helpers/search-homes.ts';

const connect = connectMcp;

interface ToolResult {
  readonly content: Array<{ text?: string }>;
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

/** The HTTP query string of an MCP search input (the dashboard's documented mapping). */
function searchQuery(input: SearchInput): string {
  const q = new URLSearchParams({ q: input.query });
  for (const [k, v] of Object.entries(input.filters ?? {})) q.set(k, String(v));
  if (input.limit !== undefined) q.set('limit', String(input.limit));
  return q.toString();
}

interface SearchInput {
  readonly query: string;
  readonly filters?: Record<string, string | number>;
  readonly limit?: number;
}

const SEARCHES: SearchInput[] = [
  { query: 'quokkaflux' },
  { query: 'childlantern', filters: { agent: 'codex', project: '/home/fixture/work/orchard_app.v2' } },
  { query: 'rootsequoia', filters: { agent: 'opencode' }, limit: 3 },
  { query: '"naïve café"' },
  { query: 'cafe' },
  { query: 'subagentmarigold', filters: { kind: 'transcript', since: 0, until: '2100-01-01T00:00:00Z' } },
  { query: 'tailmarkeromega', limit: 1 },
  { query: 'nothingmatchesthisword' },
];

const BAD_SEARCHES: Array<[Record<string, unknown>, string, RegExp]> = [
  [{ query: 'x', limit: 500 }, 'q=x&limit=500', /limit: must be at most 50/],
  [{ query: 'x', filters: { agent: 'gemini' } }, 'q=x&agent=gemini', /filters\.agent: must be one of claude, codex, opencode, other/],
  [{ query: 'x', filters: { since: 9, until: 1 } }, 'q=x&since=9&until=1', /filters\.since: must not be later than until/],
  [{ query: 'x', filters: { since: 'yesterday' } }, 'q=x&since=yesterday', /filters\.since: must be epoch milliseconds/],
  [{ query: 'x', limit: 2.5 }, 'q=x&limit=2.5', /limit: must be a number/],
];

describe('dashboard API', () => {
  let fixture: FixtureHome;
  let dash: RunningDashboard;
  let client: Client;

  const get = async <T>(path: string): Promise<T> => {
    const result = await http(dash.port, path, { headers: bearer(dash.token) });
    assert.equal(result.status, 200, `${path}: ${result.body.toString('utf8').slice(0, 300)}`);
    assert.equal(result.headers['cache-control'], 'no-store');
    return result.json<T>();
  };
  const tool = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => (await client.callTool({ name, arguments: args })) as ToolResult;

  before(async () => {
    fixture = await fixtureHome({ fts: true });
    [dash, client] = await Promise.all([startDashboardProcess(['dashboard', '--port', '0'], fixture.env), connect(fixture.env)]);
  });
  after(async () => {
    await client?.close();
    await dash?.stop();
  });

  test('search: the same inputs give the same outputs as the MCP tool', async () => {
    for (const input of SEARCHES) {
      const mcp = await tool('search_history', { ...input });
      assert.notEqual(mcp.isError, true, JSON.stringify(mcp.content));
      const api = await get<SearchHistoryOutput>(`/api/search?${searchQuery(input)}`);
      assert.deepEqual(api, mcp.structuredContent, JSON.stringify(input));
    }
    const found = await get<SearchHistoryOutput>('/api/search?q=quokkaflux');
    assert.equal(found.hits.length, 2, 'the fixture keyword is found');
    const timed = await http(dash.port, '/api/search?q=quokkaflux', { headers: bearer(dash.token) });
    assert.match(String(timed.headers['server-timing']), /^read;dur=\d+\.\d\d$/, 'the reader thread\'s time, for browsers and the bench');
  });

  test('search: bad input is refused by both, the API with 400 {error: {code, message}} naming the field', async () => {
    for (const [input, query, message] of BAD_SEARCHES) {
      const mcp = await tool('search_history', input);
      assert.equal(mcp.isError, true, `MCP refuses ${JSON.stringify(input)}`);
      const api = await http(dash.port, `/api/search?${query}`, { headers: bearer(dash.token) });
      assert.equal(api.status, 400, query);
      const body = api.json<{ error: { code: string; message: string } }>();
      assert.equal(body.error.code, 'BAD_INPUT');
      assert.match(body.error.message, message, query);
    }
    const unknown = await http(dash.port, '/api/search?q=x&sort=date', { headers: bearer(dash.token) });
    assert.equal(unknown.status, 400);
    assert.match(unknown.json<{ error: { message: string } }>().error.message, /unknown parameter "sort"/);
    assert.equal((await http(dash.port, '/api/search', { headers: bearer(dash.token) })).status, 400, 'no query');
  });

  test('get_conversation: every page of every conversation equals the MCP tool, raw as base64', async () => {
    const list = await get<ConversationListOutput>('/api/conversations?limit=200');
    assert.ok(list.conversations.length >= 20);
    for (const conversation of list.conversations.slice(0, 12)) {
      let after = 0;
      for (;;) {
        const mcp = await tool('get_conversation', { id: conversation.id, after, limit: 3 });
        const api = await get<GetConversationOutput>(`/api/conversations/${encodeURIComponent(conversation.id)}?after=${after}&limit=3`);
        assert.deepEqual(api, mcp.structuredContent, `${conversation.id} after ${after}`);
        if (api.next === null) break;
        after = api.next;
      }
    }
    const bad = await http(dash.port, '/api/conversations/x?after=-3', { headers: bearer(dash.token) });
    assert.equal(bad.status, 400);
    assert.match(bad.json<{ error: { message: string } }>().error.message, /after: must be >= 0/);
    assert.equal((await tool('get_conversation', { id: 'x', after: -3 })).isError, true);
  });

  test('the conversation list pages by its cursor to exactly the store\'s conversations, newest first, with their figures', async () => {
    const seen: ConversationListOutput['conversations'] = [];
    let cursor: string | null = null;
    do {
      const page: ConversationListOutput = await get<ConversationListOutput>(`/api/conversations?limit=4${cursor === null ? '' : `&after=${encodeURIComponent(cursor)}`}`);
      assert.ok(page.conversations.length <= 4);
      seen.push(...page.conversations);
      cursor = page.next;
    } while (cursor !== null);
    const oracle = withStoreAt(fixture.bridgeHome);
    assert.deepEqual(
      seen.map((c) => c.id),
      oracle.map((c) => c.id),
      'every conversation with records, once, by last record time then id, descending',
    );
    for (const c of seen) {
      const o = oracle.find((x) => x.id === c.id);
      assert.deepEqual({ records: c.records, bytes: c.bytes, firstAt: c.firstAt, lastAt: c.lastAt, children: c.children }, { records: o?.records, bytes: o?.bytes, firstAt: o?.firstAt, lastAt: o?.lastAt, children: o?.children }, c.id);
    }
    const codex = await get<ConversationListOutput>('/api/conversations?agent=codex');
    assert.ok(codex.conversations.length >= 4 && codex.conversations.every((c) => c.agent === 'codex'));
    const scratch = await get<ConversationListOutput>(`/api/conversations?project=${encodeURIComponent('/home/fixture/scratch')}`);
    assert.deepEqual(scratch.conversations.map((c) => c.project), ['/home/fixture/scratch']);
    const parent = seen.find((c) => c.children > 0) as (typeof seen)[number];
    const family = await get<{ children: Array<{ id: string; parent: string }> }>(`/api/conversations/${encodeURIComponent(parent.id)}/family`);
    assert.equal(family.children.length, parent.children);
    assert.ok(family.children.every((c) => c.parent === parent.id));
    const bad = await http(dash.port, '/api/conversations?after=nonsense', { headers: bearer(dash.token) });
    assert.equal(bad.status, 400);
  });

  test('a hit\'s sourceLink gives its record: source, generation, offset, exact bytes and derived text', async () => {
    const found = await get<SearchHistoryOutput>('/api/search?q=glimmerquartz');
    const hit = found.hits[0] as SearchHistoryOutput['hits'][number];
    const doc = await get<HistoryDocument>(hit.sourceLink);
    assert.equal(doc.id, hit.id);
    assert.match(doc.text, /glimmerquartz/);
    const record = doc.record as NonNullable<HistoryDocument['record']>;
    const file = readFileSync(record.source);
    assert.deepEqual(Buffer.from(record.raw, 'base64'), file.subarray(record.offset, record.offset + Buffer.from(record.raw, 'base64').length), 'the record\'s bytes are the file\'s');
    assert.equal(doc.conversation, hit.conversation);
  });

  test('sources list every generation; each download is the exact captured bytes', async () => {
    const sources: SourceListOutput['sources'] = [];
    let after: string | null = null;
    do {
      const page: SourceListOutput = await get<SourceListOutput>(`/api/sources?limit=7${after === null ? '' : `&after=${encodeURIComponent(after)}`}`);
      sources.push(...page.sources);
      after = page.next;
    } while (after !== null);
    const files = fixture.manifest.sources.filter((s) => s.path.endsWith('.jsonl'));
    assert.ok(sources.length >= files.length);
    let checked = 0;
    for (const source of sources.filter((s) => s.format === 'claude' || s.format === 'codex')) {
      const generation = source.generations.at(-1) as SourceListOutput['sources'][number]['generations'][number];
      const result = await http(dash.port, `/api/sources/${encodeURIComponent(source.id)}/raw?generation=${generation.generation}`, { headers: bearer(dash.token) });
      assert.equal(result.status, 200);
      assert.match(String(result.headers['content-disposition']), /^attachment; filename="[A-Za-z0-9._-]+\.generation-\d+"$/);
      const file = readFileSync(source.path);
      assert.equal(result.body.length, generation.bytes);
      assert.equal(sha256(result.body), sha256(file.subarray(0, result.body.length)), source.path);
      if (result.body.length === file.length) checked++;
    }
    assert.ok(checked >= 8, `${checked} whole files compared`);
    const missing = await http(dash.port, `/api/sources/${encodeURIComponent(sources[0]?.id as string)}/raw?generation=99`, { headers: bearer(dash.token) });
    assert.equal(missing.status, 404);
    assert.match(missing.json<{ error: { message: string } }>().error.message, /has no generation 99/);
  });

  test('status and activity answer with the store\'s figures', async () => {
    const status = await get<{ counts: { records: number; conversations: number }; migration: { phase: string }; capture: { backlog: { bytes: number } }; version: number; home: string }>('/api/status');
    const totals = withStoreAt(fixture.bridgeHome);
    // The health object (agent-bridge health --json) with the store's counts beside it.
    assert.equal(status.version, 1);
    assert.equal(status.home, fixture.bridgeHome);
    assert.equal(typeof status.capture.backlog.bytes, 'number');
    assert.notEqual(status.migration.phase, undefined);
    assert.equal(status.counts.conversations >= totals.length, true);
    assert.equal(status.counts.records, totals.reduce((n, c) => n + c.records, 0));
    const activity = await get<{ days: number; series: Record<string, number[]> }>('/api/activity');
    assert.equal(activity.days, 90);
  });

  test('a legacy home is read from bridge.db before its migration', async () => {
    const legacy = await legacyBridgeHome();
    const old = await startDashboardProcess(['dashboard', '--port', '0'], legacy.env);
    try {
      const found = (await http(old.port, '/api/search?q=directheron', { headers: bearer(old.token) })).json<SearchHistoryOutput>();
      assert.equal(found.store, 'legacy');
      assert.ok(found.hits.length >= 1);
      const list = (await http(old.port, '/api/conversations', { headers: bearer(old.token) })).json<ConversationListOutput>();
      assert.ok(list.conversations.length >= 1, 'listed by aggregation (bridge.db has no stats table)');
    } finally {
      await old.stop();
    }
  });
});

interface OracleRow {
  readonly id: string;
  readonly records: number;
  readonly bytes: number;
  readonly firstAt: number;
  readonly lastAt: number;
  readonly children: number;
}

/** The conversation figures computed from conversation_records directly (not from the stats table). */
function withStoreAt(bridgeHome: string): OracleRow[] {
  return withStoreFile(`${bridgeHome}/history.db`, (db) =>
    db
      .prepare(
        `SELECT r.conversation AS id, count(*) AS records, sum(length(r.raw)) AS bytes, CAST(min(r.at) AS INTEGER) AS firstAt, CAST(max(r.at) AS INTEGER) AS lastAt,
           (SELECT count(*) FROM conversations k WHERE k.parent = r.conversation) AS children
         FROM conversation_records r JOIN conversations c ON c.id = r.conversation GROUP BY r.conversation ORDER BY max(r.at) DESC, r.conversation DESC`,
      )
      .all() as OracleRow[],
  );
}

function withStoreFile<T>(path: string, read: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}
