// The migration's copy writes history.db's FTS5 index (history_documents'
// trigger, a segment per chunk statement) with FTS5's own merging held off,
// and merges in units of its own between copy units (src/migration/
// index-merge.ts): merges never run inside a copy unit's statements or
// commit. A real 0.29.x home migrates with 2-row chunks, one per unit (at
// least 88 segments written for its 176 documents, more than FTS5's crisis
// threshold of 64): merge units are reported between copy units, segments
// never pile up, FTS5's automerge and crisis merge stay off for capture
// (whose idle merge takes the index further), and every keyword count is
// the fixture's.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { LIMITS } from '../src/config/limits.ts';
import { resolvePaths } from '../src/config/paths.ts';
import type { UnitEvent } from '../src/migration/context.ts';
import { migrateHome } from '../src/migration/migrate-home.ts';
import { legacyHome } from './helpers/legacy-home.ts';
import { assertFtsKeywords } from './helpers/migration-db.ts';

test('the copy merges the FTS5 index in units of its own, between copy units, and leaves it merged', async (t) => {
  const home = await legacyHome();
  t.after(() => home.cleanup());
  const historyDb = join(home.home, 'history.db');
  const units: UnitEvent[] = [];
  /** Segments of history.db's index after each history_documents copy unit (read by another connection). */
  const segmentsSeen: number[] = [];
  const segments = (): number => {
    const db = new Database(historyDb, { readonly: true });
    try {
      return db.prepare('SELECT count(DISTINCT segid) FROM history_fts_idx').pluck().get() as number;
    } finally {
      db.close();
    }
  };
  const result = await migrateHome({
    paths: resolvePaths(home.env),
    env: home.env,
    pace: 'max',
    // One chunk per unit: each copy unit writes one segment.
    limits: { ...LIMITS, migrationChunkRows: 2, migrationUnitMs: 0 },
    transientAttempts: 1,
    onUnit: (unit) => {
      units.push(unit);
      if (unit.kind === 'copy' && unit.table === 'history_documents') segmentsSeen.push(segments());
    },
  });
  assert.equal(result.progress.phase, 'verified');

  const documents = home.manifest.databases['bridge.db'].tables.history_documents?.rows ?? 0;
  assert.equal(documents, 176);
  const copyUnits = units.filter((u) => u.kind === 'copy' && u.table === 'history_documents');
  const chunks = copyUnits.reduce((n, u) => n + u.chunks, 0);
  assert.ok(chunks >= documents / 2, `${chunks} chunks of at most two documents`);

  // Merge units ran while the documents were being copied, each right after a copy unit.
  const first = units.indexOf(copyUnits[0] as UnitEvent);
  const last = units.indexOf(copyUnits.at(-1) as UnitEvent);
  const merges = units.map((u, i) => (u.kind === 'merge' ? i : -1)).filter((i) => i >= 0);
  const between = merges.filter((i) => i > first && i < last).length;
  assert.ok(between >= 4, `${between} merge units between the ${copyUnits.length} copy units of history_documents`);
  assert.ok(merges.every((i) => units[i - 1]?.kind === 'copy' || units[i - 1]?.kind === 'merge'), 'merges follow copy units');
  assert.ok(units.every((u) => u.kind !== 'merge' || (u.rows === 0 && u.bytes === 0)), 'a merge unit moves no legacy rows');

  // Segments never piled up towards FTS5's crisis threshold (64): 88 written, fewer than 16 per level kept.
  assert.ok(Math.max(...segmentsSeen) < 32, `segments during the copy: ${segmentsSeen.join(' ')}`);
  const db = new Database(historyDb, { readonly: true });
  try {
    const option = (k: string): unknown => db.prepare('SELECT v FROM history_fts_config WHERE k = ?').pluck().get(k);
    assert.equal(option('automerge'), 0, 'FTS5 merges inside commits stay off');
    assert.equal(option('crisismerge'), 64);
  } finally {
    db.close();
  }
  assertFtsKeywords(home);
});
