// A reindex (reset of derived data, rebuilt from retained records) restores
// identical search results. Runs `agent-bridge reindex` black-box on a
// private copy of a captured home.

import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { resolvePaths } from '../src/config/paths.ts';
import { HistoryReader } from '../src/read/history-reader.ts';
import { cli } from './helpers/home.ts';
import { fixtureHome, homeEnv, searchTempDir } from './helpers/search-homes.ts';

test('reindex restores identical search results for every fixture keyword and filter', async () => {
  const fixture = await fixtureHome({ fts: true });
  const bridgeHome = join(searchTempDir('reindex'), 'bridge');
  cpSync(fixture.bridgeHome, bridgeHome, { recursive: true });
  const env = homeEnv(fixture.home, bridgeHome);
  const queries = Object.entries(fixture.manifest.keywords)
    .filter(([, info]) => info.agent !== 'opencode')
    .flatMap(([keyword, info]) => [
      { query: keyword, limit: 50 },
      { query: keyword, filters: { agent: info.agent, project: '/home/fixture/work/orchard_app.v2' }, limit: 50 },
    ]);
  const snapshot = async (): Promise<unknown[]> => {
    const reader = new HistoryReader(resolvePaths(env));
    try {
      const out: unknown[] = [];
      for (const q of queries) out.push(await reader.search(q));
      return out;
    } finally {
      reader.close();
    }
  };
  const before = await snapshot();
  const reindex = await cli(['reindex'], env);
  assert.equal(reindex.code, 0, reindex.stderr);
  assert.deepEqual(await snapshot(), before);
});
