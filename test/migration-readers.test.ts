// Readers switch stores on verification: before it (also halfway through a
// migration) they read the legacy tables in bridge.db, after it history.db,
// and every fixture keyword gives the same answer from both.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolvePaths } from '../src/config/paths.ts';
import { openReadStore } from '../src/store/read-path.ts';
import { search, type StoreSearchResult as SearchResult } from '../src/store/search.ts';
import { legacyHome } from './helpers/legacy-home.ts';
import { migrate } from './helpers/migrate.ts';

function searchAll(paths: ReturnType<typeof resolvePaths>, words: readonly string[]): { source: string; results: Record<string, SearchResult> } {
  const store = openReadStore(paths);
  assert.ok(store.db !== null);
  try {
    const results = Object.fromEntries(words.map((word) => [word, search(store.db as NonNullable<typeof store.db>, { query: word, filters: {}, limit: 50 })]));
    return { source: store.source, results };
  } finally {
    store.db?.close();
  }
}

for (const userVersion of [8, 6] as const) {
  test(`user_version ${userVersion}: readers use bridge.db until verification, then history.db, with identical answers`, async (t) => {
    const home = await legacyHome({ userVersion });
    t.after(() => home.cleanup());
    const paths = resolvePaths(home.env);
    const words = Object.keys(home.manifest.keywords);
    const inHistory = Object.entries(home.manifest.keywords)
      .filter(([, k]) => k.expectIn.includes('bridge.db:history_documents'))
      .map(([w]) => w);
    assert.ok(inHistory.length >= 10);

    const before = searchAll(paths, words);
    assert.equal(before.source, 'legacy');
    for (const word of inHistory) assert.ok((before.results[word]?.hits.length ?? 0) > 0, `legacy search finds ${word}`);

    const halfway = await migrate(home, { stopAt: { kind: 'copy', count: 2 } });
    assert.equal(halfway.phase, 'copy');
    const during = searchAll(paths, words);
    assert.equal(during.source, 'legacy');
    assert.deepEqual(during.results, before.results);

    assert.equal((await migrate(home)).phase, 'verified');
    const after = searchAll(paths, words);
    assert.equal(after.source, 'history');
    for (const word of words) assert.deepEqual(after.results[word], before.results[word], word);
  });
}
