// The MCP server as agent CLIs run it: `agent-bridge mcp` spawned over stdio
// and driven by the SDK's Client. Lists both tools with their zod-derived
// schemas, calls both (JSON text content plus structuredContent), answers
// bad arguments with an isError result naming the field, honours
// --tool-prefix bridge_, and never writes the store.

import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp } from './helpers/mcp.ts';
import type { GetConversationOutput, SearchHistoryOutput } from '../protocols/search.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { type FixtureHome, fixtureHome, legacyBridgeHome } from './helpers/search-homes.ts';

const connect = connectMcp;

interface ToolResult {
  readonly content: Array<{ type: string; text?: string }>;
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

async function call<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  const text = result.content[0]?.text ?? '';
  assert.deepEqual(JSON.parse(text), result.structuredContent, 'text content and structuredContent agree');
  return result.structuredContent as T;
}

async function failure(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} is an error`);
  return result.content.map((c) => c.text ?? '').join('\n');
}

describe('agent-bridge mcp (stdio)', () => {
  let fixture: FixtureHome;
  let client: Client;
  let storeMtime: number;

  before(async () => {
    fixture = await fixtureHome({ fts: true });
    storeMtime = statSync(resolvePaths(fixture.env).historyDb).mtimeMs;
    client = await connect(fixture.env);
  });
  after(async () => {
    await client.close();
  });

  test('lists search_history and get_conversation with their input schemas', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['get_conversation', 'search_history']);
    const search = tools.find((t) => t.name === 'search_history');
    assert.deepEqual(search?.inputSchema.required, ['query']);
    const properties = search?.inputSchema.properties as Record<string, { properties?: Record<string, { enum?: string[] }> }>;
    assert.deepEqual(Object.keys(properties).sort(), ['filters', 'limit', 'query']);
    assert.deepEqual(properties.filters?.properties?.agent?.enum, ['claude', 'codex', 'opencode', 'other']);
    assert.equal((search?.inputSchema as { additionalProperties?: boolean }).additionalProperties, false);
    assert.equal(search?.annotations?.readOnlyHint, true);
    const conversation = tools.find((t) => t.name === 'get_conversation');
    assert.deepEqual(conversation?.inputSchema.required, ['id']);
  });

  test('search_history then get_conversation on a hit, paging with next', async () => {
    const found = await call<SearchHistoryOutput>(client, 'search_history', { query: 'childlantern', filters: { agent: 'codex', project: '/home/fixture/work/orchard_app.v2' } });
    assert.equal(found.engine, 'fts5');
    assert.equal(found.store, 'history');
    assert.equal(found.hits.length, 4);
    const id = found.hits[0]?.conversation as string;
    assert.match(id, /^codex:/);
    let after = 0;
    let records = 0;
    for (;;) {
      const page = await call<GetConversationOutput>(client, 'get_conversation', { id, after, limit: 1 });
      assert.equal(page.conversation?.id, id);
      records += page.records.length;
      if (page.next === null) break;
      assert.ok(page.next > after);
      after = page.next;
    }
    assert.ok(records >= 1);
    const unknown = await call<GetConversationOutput>(client, 'get_conversation', { id: 'codex:none' });
    assert.deepEqual(unknown, { conversation: null, records: [], next: null });
  });

  test('bad arguments are isError results that name the field', async () => {
    assert.match(await failure(client, 'search_history', {}), /query/);
    assert.match(await failure(client, 'search_history', { query: 'x', limit: 500 }), /at most 50.*limit|limit.*at most 50/s);
    assert.match(await failure(client, 'search_history', { query: 'x', filters: { agent: 'gemini' } }), /must be one of claude, codex, opencode, other/);
    assert.match(await failure(client, 'search_history', { query: 'x', filters: { since: 9, until: 1 } }), /must not be later than until/);
    assert.match(await failure(client, 'search_history', { query: 'x', sort: 'date' }), /sort/);
    assert.match(await failure(client, 'get_conversation', { id: 'x', after: -3 }), /after/);
    assert.match(await failure(client, 'get_conversation', { id: 'x'.repeat(600) }), /at most 512/);
  });

  test('hostile query text is not an error', async () => {
    for (const query of ['"', 'NEAR(a b', "'; DROP TABLE history_documents; --", '🚀', '東京']) {
      const result = await call<SearchHistoryOutput>(client, 'search_history', { query });
      assert.ok(Array.isArray(result.hits));
    }
  });

  test('--tool-prefix bridge_ exposes bridge_search_history and bridge_get_conversation', async () => {
    const prefixed = await connect(fixture.env, ['--tool-prefix', 'bridge_']);
    try {
      const { tools } = await prefixed.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['bridge_get_conversation', 'bridge_search_history']);
      const found = await call<SearchHistoryOutput>(prefixed, 'bridge_search_history', { query: 'quokkaflux' });
      assert.equal(found.hits.length, 2);
      const page = await call<GetConversationOutput>(prefixed, 'bridge_get_conversation', { id: found.hits[0]?.conversation, limit: 2 });
      assert.equal(page.records.length, 2);
    } finally {
      await prefixed.close();
    }
  });

  test('the server never wrote the store', () => {
    assert.equal(statSync(resolvePaths(fixture.env).historyDb).mtimeMs, storeMtime);
  });

  test('on a legacy home (before migration) it answers from bridge.db', async () => {
    const legacy = await legacyBridgeHome();
    const legacyClient = await connect(legacy.env);
    try {
      const found = await call<SearchHistoryOutput>(legacyClient, 'search_history', { query: 'directheron' });
      assert.equal(found.store, 'legacy');
      assert.ok(found.hits.length >= 1);
    } finally {
      await legacyClient.close();
    }
  });
});
