// Any string is a valid query: FTS5 syntax, SQL fragments, quotes, emoji,
// CJK, control characters never cause an SQL or FTS error, on either engine
// (FTS5, and the literal engine of a store without FTS5). Invalid input (not
// the query text, but the shape) is refused with the field and the reason.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { resolvePaths } from '../src/config/paths.ts';
import { HistoryReader } from '../src/read/history-reader.ts';
import { cli } from './helpers/home.ts';
import { fixtureHome, type FixtureHome } from './helpers/search-homes.ts';

export const HOSTILE: readonly string[] = [
  '"',
  '""',
  '"""',
  '"unterminated phrase',
  'quokkaflux"',
  '*',
  '**',
  'quokka*',
  '*flux',
  '^quokkaflux',
  'NEAR',
  'NEAR(quokkaflux zephyrine)',
  'NEAR(quokkaflux zephyrine, 5)',
  'quokkaflux NEAR/2 zephyrine',
  'AND',
  'OR',
  'NOT',
  'quokkaflux AND',
  'OR quokkaflux',
  'quokkaflux NOT zephyrine',
  '-quokkaflux',
  '- -',
  '+',
  '(',
  ')',
  '((quokkaflux)',
  'body:quokkaflux',
  'history_fts:quokkaflux',
  '{body}: quokkaflux',
  'col1 : x',
  ':',
  "'",
  "''; DROP TABLE history_documents; --",
  '" OR 1=1 --',
  "x' OR '1'='1",
  '1; SELECT * FROM conversation_records',
  '%',
  '_',
  '%_%',
  '\\',
  '\\"quokkaflux\\"',
  '🚀',
  '🚀🚀 quokkaflux',
  '👩‍👩‍👧‍👦',
  '東京',
  '東京タワー',
  'タワー',
  '한국어 검색',
  'ไทย',
  'naïve café',
  'NAÏVE CAFÉ',
  'Ωmega',
  '∑',
  '✓ — ✓',
  '\u0000',
  'quokka\u0000flux',
  '\t\tquokkaflux\n',
  '\u200b',
  '\ufeffquokkaflux',
  '\ud800',
  'a'.repeat(1000),
  'word '.repeat(199) + 'word',
  Array.from({ length: 40 }, (_, i) => `term${i}`).join(' '),
  '$',
  '@@@',
  '#!/bin/sh',
  '<script>alert(1)</script>',
  '{"json": [1, 2]}',
  '`rm -rf /`',
  'x'.repeat(200),
  '0',
  '-1',
  '1e308',
  'NaN',
  'null',
  'undefined',
];

for (const engine of ['fts5', 'plain'] as const) {
  describe(`hostile queries (${engine} store)`, () => {
    let fixture: FixtureHome;
    let reader: HistoryReader;
    before(async () => {
      fixture = await fixtureHome({ fts: engine === 'fts5' });
      reader = new HistoryReader(resolvePaths(fixture.env));
    });
    after(() => reader.close());

    test(`${HOSTILE.length} hostile strings all succeed, with and without filters`, async () => {
      assert.ok(HOSTILE.length >= 50);
      for (const query of HOSTILE) {
        if (query.trim() === '') continue;
        for (const filters of [{}, { agent: 'claude', project: '/home/fixture/work/orchard_app.v2', since: 0 }, { session: query.slice(0, 256), job: query.slice(0, 256) }]) {
          if ('session' in filters && (filters.session ?? '').trim() === '') continue;
          const result = await reader.search({ query, filters, limit: 5 });
          assert.ok(result.engine === 'fts5' || result.engine === 'plain', JSON.stringify(query));
          if (engine === 'plain') assert.equal(result.engine, 'plain');
          assert.ok(Array.isArray(result.hits));
          for (const hit of result.hits) assert.ok(hit.snippet.length <= 320);
        }
      }
    });

    test('hostile strings that contain a fixture word still find it (quoted, FTS syntax is literal)', async () => {
      for (const query of ['quokkaflux"', '"quokkaflux', '(quokkaflux)', '{quokkaflux}:', '-quokkaflux', 'quokkaflux*', 'QUOKKAFLUX']) {
        const result = await reader.search({ query, limit: 5 });
        if (engine === 'fts5') assert.ok(result.hits.length > 0, `${query} finds quokkaflux`);
      }
      // Substrings of spaceless scripts and diacritics fold on both engines.
      assert.equal((await reader.search({ query: '東京' })).hits.length, 1);
      assert.equal((await reader.search({ query: 'NAIVE CAFE' })).hits.length, 1);
      assert.equal((await reader.search({ query: '"naïve café"' })).hits.length, 1);
    });
  });
}

describe('search input validation', () => {
  let reader: HistoryReader;
  before(async () => {
    reader = new HistoryReader(resolvePaths((await fixtureHome({ fts: true })).env));
  });
  after(() => reader.close());

  test('bad input is refused with the field and the reason', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /query: /],
      [{ query: '   ' }, /query: must not be empty/],
      [{ query: 'x'.repeat(1001) }, /query: must be at most 1000 characters/],
      [{ query: 7 }, /query: must be a string/],
      [{ query: 'x', limit: 0 }, /limit: must be at least 1/],
      [{ query: 'x', limit: 51 }, /limit: must be at most 50/],
      [{ query: 'x', limit: 2.5 }, /limit: must be an integer/],
      [{ query: 'x', extra: true }, /unknown field "extra"/],
      [{ query: 'x', filters: { agent: 'gemini' } }, /filters\.agent: must be one of claude, codex, opencode, other/],
      [{ query: 'x', filters: { kind: 'chat' } }, /filters\.kind: must be one of message, run, decision/],
      [{ query: 'x', filters: { repo: '/x' } }, /filters: unknown field "repo"/],
      [{ query: 'x', filters: { since: '2026-01-01' } }, /filters\.since: must be epoch milliseconds .* or an ISO-8601 date-time with offset/],
      [{ query: 'x', filters: { since: '2026-01-01T10:00:00' } }, /filters\.since: .*offset/],
      [{ query: 'x', filters: { until: -5 } }, /filters\.until: /],
      [{ query: 'x', filters: { since: 20, until: 10 } }, /filters\.since: must not be later than until/],
      [{ query: 'x', filters: { since: '2026-03-14T10:00:00+02:00', until: '2026-03-14T07:59:59Z' } }, /must not be later than until/],
      [{ query: 'x', filters: { session: '' } }, /filters\.session: must not be empty/],
      [{ query: 'x', filters: { job: 'j'.repeat(257) } }, /filters\.job: must be at most 256 characters/],
      [null, /expected object/i],
    ];
    for (const [input, reason] of cases) {
      await assert.rejects(reader.search(input), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'BAD_INPUT', String(error));
        assert.match(error.message, reason);
        return true;
      });
    }
  });

  test('accepted forms: ISO-8601 with Z, ±hh:mm and ±hhmm offsets, epoch ms, since = until, trimmed query', async () => {
    for (const filters of [
      { since: '2026-03-14T09:00:00Z', until: '2026-03-14T10:00:00.5+01:00' },
      { since: '2026-03-14T09:00-0100' },
      { since: 0, until: 0 },
      { until: 1773482531081 },
    ]) {
      const result = await reader.search({ query: '  codexmarmot  ', filters });
      assert.ok(Array.isArray(result.hits));
    }
    const window = await reader.search({ query: 'codexmarmot', filters: { since: '2026-03-14T00:00:00Z', until: '2026-03-15T00:00:00Z' }, limit: 50 });
    assert.ok(window.hits.length > 0);
    for (const hit of window.hits) assert.ok(hit.at >= Date.parse('2026-03-14T00:00:00Z') && hit.at < Date.parse('2026-03-15T00:00:00Z'));
    assert.deepEqual((await reader.search({ query: 'codexmarmot', filters: { until: '2026-03-01T00:00:00Z' } })).hits, []);
  });

  test('CLI: hostile query text succeeds; --since forms; bad flags are usage errors', async () => {
    const { env } = await fixtureHome({ fts: true });
    for (const query of ['"', "''; DROP TABLE x; --", 'NEAR(', '🚀']) {
      const out = await cli(['search', query, '--json'], env);
      assert.equal(out.code, 0, out.stderr);
      assert.ok(Array.isArray((JSON.parse(out.stdout.toString('utf8')) as { hits: unknown[] }).hits));
    }
    for (const since of ['3650d', '2026-03-14', '2026-03-14T00:00:00Z', '0']) {
      const out = await cli(['search', 'codexmarmot', '--since', since, '--json'], env);
      assert.equal(out.code, 0, out.stderr);
    }
    const bad = await cli(['search', 'x', '--since', 'yesterday'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--since must be an age/);
    const kind = await cli(['search', 'x', '--kind', 'chat'], env);
    assert.equal(kind.code, 2);
    assert.match(kind.stderr, /filters\.kind: must be one of/);
    const human = await cli(['search', 'codexmarmot', '--agent', 'codex', '--limit', '2'], env);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout.toString('utf8'), /^codex {2}2026-03-14 .* {2}\/home\/fixture\/work\/orchard_app\.v2 {2}codex:/m);
    assert.match(human.stdout.toString('utf8'), /2 hits \(fts5\)/);
  });
});
