// RecentMap (src/cache/recent-map.ts) and the writer's caches built on it.
// What callers rely on: the map never holds more than its capacity, drops the
// least recently used entry (a get counts as a use), and answers every key it
// holds as a Map would. And the writer, whose cursors and conversation rows
// it bounds: a source or conversation whose cached row was evicted continues
// from what the store holds, so a capture over more sources than the cache
// keeps commits every chunk where its cursor ends and refuses one that does not.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SourcePlan } from '../protocols/sources.ts';
import { RecentMap } from '../src/cache/recent-map.ts';
import { openWriter } from '../src/store/open.ts';
import { HistoryWriter, WRITER_CACHED_ROWS } from '../src/store/writer.ts';
import { claudeLineChunk, claudePlan } from './helpers/commit-chunks.ts';
import { prng, tempDir } from './helpers/home.ts';

describe('RecentMap', () => {
  it('drops the least recently used entry, a get counting as a use', () => {
    const map = new RecentMap<string, number>(3);
    map.set('a', 1).set('b', 2).set('c', 3);
    assert.equal(map.get('a'), 1); // a is now the most recent; b the least
    map.set('d', 4);
    assert.equal(map.size, 3);
    assert.equal(map.get('b'), undefined);
    assert.deepEqual([map.get('a'), map.get('c'), map.get('d')], [1, 3, 4]);
    map.set('c', 30); // a set of a held key replaces it and makes it the most recent
    map.set('e', 5); // the least recent is now a
    assert.equal(map.get('a'), undefined);
    assert.deepEqual([map.get('c'), map.get('d'), map.get('e')], [30, 4, 5]);
    map.clear();
    assert.equal(map.size, 0);
  });

  it('answers as a model that keeps keys in order of last use, over random operations', () => {
    for (const seed of [1, 7, 42, 1234]) {
      const next = prng(seed);
      const capacity = 1 + Math.floor(next() * 8);
      const map = new RecentMap<number, number>(capacity);
      let model: [number, number][] = []; // least recently used first
      for (let step = 0; step < 2000; step++) {
        const key = Math.floor(next() * 12);
        if (next() < 0.5) {
          const value = Math.floor(next() * 1000);
          map.set(key, value);
          model = [...model.filter(([k]) => k !== key), [key, value]];
          if (model.length > capacity) model.shift();
        } else {
          const held = model.find(([k]) => k === key);
          assert.equal(map.get(key), held?.[1], `seed ${seed}, step ${step}: get ${key}`);
          if (held !== undefined) model = [...model.filter(([k]) => k !== key), held];
        }
        assert.equal(map.size, model.length, `seed ${seed}, step ${step}: size`);
      }
    }
  });

  it('refuses a capacity below one', () => {
    assert.throws(() => new RecentMap(0), RangeError);
    assert.throws(() => new RecentMap(1.5), RangeError);
  });
});

/** Source n of the capture: a session file of its own. */
function planOf(n: number): SourcePlan {
  return claudePlan(`71000000-0000-4000-8000-${String(n).padStart(12, '0')}`);
}

describe('the writer over more sources than it caches', () => {
  it('continues an evicted source from its stored cursor and refuses a chunk that does not continue it', () => {
    const db = openWriter(join(tempDir(), 'history.db'));
    try {
      const writer = new HistoryWriter(db);
      const plans = Array.from({ length: WRITER_CACHED_ROWS + 40 }, (_, n) => planOf(n));
      assert.equal(writer.register(plans), plans.length);
      // A first line for every source, two sources a batch as capture sends them: the first ones leave the caches.
      const ends = new Map<string, number>();
      for (let n = 0; n < plans.length; n += 2) {
        const chunks = plans.slice(n, n + 2).map((plan) => claudeLineChunk(plan, 0, `first line of ${plan.id}`, `/work/project-${n % 7}`));
        writer.commit(chunks);
        for (const chunk of chunks) ends.set(chunk.source, chunk.bytes.length);
      }
      // The first sources' cursors are no longer cached: their second lines commit where the stored cursors end.
      const early = plans.slice(0, 20);
      for (const plan of early) {
        const end = ends.get(plan.id) as number;
        const second = claudeLineChunk(plan, end, `second line of ${plan.id}`);
        const length = second.bytes.length;
        const result = writer.commit([second]);
        assert.equal(result.records, 1);
        assert.deepEqual(result.cursors, [[plan.id, { ...result.cursors[0]?.[1], offset: end + length }]]);
      }
      // A chunk where the stored cursor does not end is refused (a refusal drops the caches: this reads the store).
      const last = plans[plans.length - 1] as SourcePlan;
      assert.throws(() => writer.commit([claudeLineChunk(last, 0, 'again from the start')]), /does not continue its committed cursor/);
      assert.throws(() => writer.commit([claudeLineChunk(last, (ends.get(last.id) as number) + 1, 'past a gap')]), /does not continue its committed cursor/);
      // Every source's records, in file order; the conversations kept the project their first line gave them.
      const rows = db.prepare('SELECT s.id, count(r.rowid) AS records, max(r.offset) AS last, c.project FROM conversation_sources s JOIN conversation_records r ON r.source = s.id JOIN conversations c ON c.id = s.conversation GROUP BY s.id').all() as { id: string; records: number; last: number; project: string }[];
      assert.equal(rows.length, plans.length);
      const earlyIds = new Set(early.map((p) => p.id));
      for (const row of rows) {
        assert.equal(row.records, earlyIds.has(row.id) ? 2 : 1, row.id);
        assert.equal(row.last, earlyIds.has(row.id) ? ends.get(row.id) : 0, row.id);
        assert.match(row.project, /^\/work\/project-\d$/, row.id);
      }
    } finally {
      db.close();
    }
  });
});
