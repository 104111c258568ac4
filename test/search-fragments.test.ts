// A line longer than one 64 KiB chunk is captured as several documents, but
// matching is per line: words in different fragments of one line match an
// AND query (once), on both engines; they are not a phrase; the fragments
// are one hit.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
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
