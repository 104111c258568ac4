// HistoryService.search / getConversation: answered by the reader worker
// thread (real worker, tsx bootstrap) on read-only connections, independent
// of ingestion (they work with AGENT_BRIDGE_HISTORY_INGEST=false), not
// delayed by an open write transaction, validated before any thread hop.
// The facade itself stays free of SQLite and parser imports.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { HistoryError } from '../protocols/errors.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { HistoryReader } from '../src/read/history-reader.ts';
import { HistoryService } from '../src/service/history-service.ts';
import { repoRoot } from './helpers/home.ts';
import { type FixtureHome, fixtureHome } from './helpers/search-homes.ts';

describe('HistoryService reads (reader worker thread)', () => {
  let fixture: FixtureHome;
  let service: HistoryService;
  let reader: HistoryReader;

  before(async () => {
    fixture = await fixtureHome({ fts: true });
    service = new HistoryService({ env: { ...fixture.env, AGENT_BRIDGE_HISTORY_INGEST: 'false' } });
    reader = new HistoryReader(resolvePaths(fixture.env));
  });
  after(async () => {
    await service.stop();
    reader.close();
  });

  test('answers like the reader, with ingestion switched off (no history worker)', async () => {
    assert.equal(service.disabled, true);
    const input = { query: 'codexmarmot', filters: { agent: 'codex' }, limit: 50 };
    const viaService = await service.search(input);
    assert.deepEqual(viaService, await reader.search(input));
    assert.equal(service.running, false, 'the ingestion worker was never started');
    const id = viaService.hits[0]?.conversation as string;
    assert.deepEqual(await service.getConversation({ id, limit: 3 }), await reader.getConversation({ id, limit: 3 }));
  });

  test('bad input is a BAD_INPUT HistoryError naming the field', async () => {
    await assert.rejects(service.search({ query: 'x', filters: { agent: 'bard' } }), (error: unknown) => {
      assert.ok(error instanceof HistoryError);
      assert.equal(error.code, 'BAD_INPUT');
      assert.match(error.message, /filters\.agent/);
      return true;
    });
    await assert.rejects(service.getConversation({ id: 'x', limit: 1000 }), /limit: must be at most 100/);
  });

  test('an open write transaction on history.db does not delay a search', async () => {
    const writer = new Database(resolvePaths(fixture.env).historyDb);
    writer.pragma('busy_timeout = 0');
    writer.exec('BEGIN IMMEDIATE');
    try {
      writer.prepare("INSERT INTO history_cursors (source, cursor) VALUES ('test-write-in-progress', '1')").run();
      const result = await service.search({ query: 'quokkaflux' });
      assert.equal(result.hits.length, 2);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });

  test('stop ends the reader thread; a later call starts a new one', async () => {
    await service.stop();
    const result = await service.search({ query: 'zephyrine' });
    assert.equal(result.hits.length, 1);
  });
});

test('the facade imports no SQLite, parser pool or source parsers', () => {
  const forbidden = /^(better-sqlite3|piscina)$|\/(store|sources|ingest|text)\//;
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^import\s+(?!type\b)[^'"]*['"]([^'"]+)['"]/gm)) {
      const spec = match[1] as string;
      assert.doesNotMatch(spec.startsWith('.') ? resolve(dirname(file), spec) : spec, forbidden, `${file} imports ${spec}`);
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
    }
  };
  visit(join(repoRoot, 'src', 'service', 'history-service.ts'));
  assert.ok(seen.size >= 3);
});
