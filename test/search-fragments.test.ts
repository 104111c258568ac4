// A line longer than one 64 KiB chunk is captured as several documents, but
// matching is per line: words in different fragments of one line match an
// AND query (once), on both engines; they are not a phrase; the fragments
// are one hit.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { WHOLE_LINE_MAX } from '../protocols/records.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { HistoryReader } from '../src/read/history-reader.ts';
import { cli } from './helpers/home.ts';
import { homeEnv, searchTempDir } from './helpers/search-homes.ts';

const CWD = '/home/fixture/work/fragments';

function line(session: string, text: string, second: number): string {
  return JSON.stringify({ type: 'user', sessionId: session, cwd: CWD, uuid: randomUUID(), timestamp: `2026-03-01T10:00:${String(second).padStart(2, '0')}.000Z`, message: { role: 'user', content: text } });
}

describe('AND across the fragments of an oversized line', () => {
  const session = randomUUID();
  const readers = new Map<string, HistoryReader>();

  before(async () => {
    const home = searchTempDir('fragments');
    const dir = join(home, '.claude', 'projects', '-home-fixture-work-fragments');
    mkdirSync(dir, { recursive: true });
    // 300 KiB of filler between the two words: they land in different 64 KiB chunks.
    const filler = Array.from({ length: 30_000 }, (_, i) => `filler${i % 97}`).join(' ');
    const lines = [line(session, 'opening remark alphafragment', 1), line(session, `alphafragment ${filler} omegafragment`, 2), line(session, 'closing remark omegafragment', 3)];
    writeFileSync(join(dir, `${session}.jsonl`), `${lines.join('\n')}\n`);
    for (const [engine, extra] of [['fts5', {}], ['plain', { AGENT_BRIDGE_HISTORY_FTS: 'off' }]] as const) {
      const env = homeEnv(home, join(home, `bridge-${engine}`), extra);
      const out = await cli(['ingest', '--once', '--pace', 'max'], env);
      assert.equal(out.code, 0, out.stderr);
      readers.set(engine, new HistoryReader(resolvePaths(env)));
    }
  });

  for (const engine of ['fts5', 'plain'] as const) {
    test(`${engine}: both words of the long line are one hit; single words count lines`, async () => {
      const reader = readers.get(engine) as HistoryReader;
      const both = await reader.search({ query: 'alphafragment omegafragment', limit: 50 });
      assert.equal(both.engine, engine);
      assert.equal(both.hits.length, 1, JSON.stringify(both.hits.map((h) => h.id)));
      assert.equal(both.hits[0]?.conversation, `claude:${session}`);
      assert.equal((await reader.search({ query: 'alphafragment', limit: 50 })).hits.length, 2);
      assert.equal((await reader.search({ query: 'omegafragment', limit: 50 })).hits.length, 2);
      assert.equal((await reader.search({ query: 'omegafragment alphafragment', filters: { project: CWD }, limit: 50 })).hits.length, 1);
      assert.equal((await reader.search({ query: 'alphafragment omegafragment', filters: { agent: 'codex' }, limit: 50 })).hits.length, 0);
      assert.equal((await reader.search({ query: 'filler5 filler96', limit: 50 })).hits.length, 1, 'fragments of one line are one hit');
    });
  }

  test('fts5: the words are not a phrase', async () => {
    const reader = readers.get('fts5') as HistoryReader;
    assert.equal((await reader.search({ query: '"alphafragment omegafragment"' })).hits.length, 0);
  });
});

// The rarest word is read first, and a common word is then asked only of the
// fragments of the lines still possible (one document at a time, when they
// are few against its matches). Both ways must give the lines that hold every
// word, and no other.
describe('AND across fragments: a rare word with a common one', () => {
  const session = randomUUID();
  let reader: HistoryReader;
  /** Filler of about `bytes` between planted words, so they land in different 64 KiB chunks. */
  const filler = (bytes: number, salt: number): string => Array.from({ length: Math.ceil(bytes / 5) }, (_, i) => `fill${(i * 7 + salt) % 89}`).join(' ');

  before(async () => {
    const home = searchTempDir('fragments-common');
    const dir = join(home, '.claude', 'projects', '-home-fixture-work-fragments');
    mkdirSync(dir, { recursive: true });
    const lines: string[] = [];
    // Lines over WHOLE_LINE_MAX (no document holds one whole), each planted word in a fragment of its own.
    const half = WHOLE_LINE_MAX / 2 + 4096;
    lines.push(line(session, `rarefirst ${filler(half, 1)} commonword ${filler(half, 2)} tailword`, 1));
    lines.push(line(session, `raresecond ${filler(2 * half, 3)} tailword`, 2));
    lines.push(line(session, `rarethird ${filler(half, 4)} "quoted words here" ${filler(half, 5)} commonword`, 3));
    // The common word in many short lines (so it is asked of the long lines' fragments one by one).
    for (let i = 0; i < 2500; i++) lines.push(line(session, `commonword short line ${i}`, 4 + (i % 50)));
    writeFileSync(join(dir, `${session}.jsonl`), `${lines.join('\n')}\n`);
    const env = homeEnv(home, join(home, 'bridge'));
    const out = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(out.code, 0, out.stderr);
    reader = new HistoryReader(resolvePaths(env));
  });

  const hits = async (query: string): Promise<number> => (await reader.search({ query, limit: 50 })).hits.length;

  const cases: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, number]>]> = [
    ['the line with both words is one hit, in either order', [['rarefirst commonword', 1], ['commonword rarefirst', 1], ['rarethird commonword', 1]]],
    ['a rare word whose line lacks the common word finds nothing', [['raresecond commonword', 0], ['commonword raresecond', 0]]],
    ['a word in two long lines and a rare one: only the line of the rare one', [['tailword raresecond', 1], ['tailword rarefirst commonword', 1], ['tailword rarethird', 0]]],
    ['a phrase and a word in different fragments', [['"quoted words here" rarethird', 1], ['"quoted words here" commonword', 1], ['"words quoted here" rarethird', 0]]],
  ];
  for (const [title, queries] of cases) {
    test(title, async () => {
      for (const [query, expected] of queries) assert.equal(await hits(query), expected, query);
    });
  }
});
