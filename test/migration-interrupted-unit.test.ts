// The snapshot pass commits a unit's rows to the snapshot file, then its
// checkpoints to the progress database (SnapshotWriter.unit). These tests
// put a snapshot into each state an interruption between the two commits can
// leave, and resume:
// - rows past a table's last checkpoint that equal bridge.db's are kept;
// - rows past it that bridge.db no longer holds that way make the table's
//   generation retained (never dropped), and the table is snapshotted again;
// - a retain whose rename committed without its record is completed.
// Every resumed run ends verified with history.db equal to bridge.db.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { legacyHome, type TestHome } from './helpers/legacy-home.ts';
import { digests, migrationRow, snapshotFiles, tableNames } from './helpers/migration-db.ts';
import { migrate } from './helpers/migrate.ts';

/** Stop inside the snapshot of history_tags; return the snapshot's path and that table's checkpoint. */
async function stoppedInTags(home: TestHome): Promise<{ snapshot: string; end: number }> {
  const stopped = await migrate(home, { stopAt: { kind: 'snapshot', table: 'history_tags', count: 2 } });
  assert.equal(stopped.phase, 'snapshot');
  const [name] = snapshotFiles(home.home).filter((f) => f.endsWith('.db') && !f.endsWith('.progress.db'));
  const snapshot = join(home.home, '.migration-snapshots', name as string);
  const progress = new Database(`${snapshot}.progress.db`, { readonly: true });
  const end = progress.prepare("SELECT snapshot_end FROM tables WHERE name = 'history_tags'").pluck().get() as number;
  progress.close();
  assert.ok(end > 0);
  return { snapshot, end };
}

/** Write rows past the checkpoint into the snapshot, as a unit whose checkpoint was lost would have. */
function writePastCheckpoint(home: TestHome, snapshot: string, end: number, changed: boolean): void {
  const db = new Database(snapshot);
  try {
    db.prepare('ATTACH DATABASE ? AS bridge').run(join(home.home, 'bridge.db'));
    const value = changed ? "value || ' (an older value)'" : 'value';
    const written = db.prepare(`INSERT INTO main.history_tags (rowid, id, type, value) SELECT rowid, id, type, ${value} FROM bridge.history_tags WHERE rowid > ? ORDER BY rowid LIMIT 20`).run(end);
    assert.equal(written.changes, 20);
  } finally {
    db.close();
  }
}

async function assertVerifiedCopy(home: TestHome): Promise<Record<string, unknown>> {
  const done = await migrate(home);
  assert.equal(done.phase, 'verified', JSON.stringify(done.error));
  const bridge = home.manifest.databases['bridge.db'];
  const copied = await digests(join(home.home, 'history.db'), bridge.legacyHistoryTables);
  for (const name of bridge.legacyHistoryTables) assert.deepEqual(copied[name], { rows: bridge.tables[name]?.rows, sha256: bridge.tables[name]?.sha256 }, name);
  return migrationRow(join(home.home, 'history.db'))?.manifest as Record<string, unknown>;
}

test('rows past the last checkpoint that equal bridge.db are kept, and the table stays in its generation', async (t) => {
  const home = await legacyHome();
  t.after(() => home.cleanup());
  const { snapshot, end } = await stoppedInTags(home);
  writePastCheckpoint(home, snapshot, end, false);
  const manifest = (await assertVerifiedCopy(home)) as { retained: unknown[]; tables: Record<string, { generation: number }> };
  assert.deepEqual(manifest.retained, []);
  assert.equal(manifest.tables.history_tags?.generation, 0);
});

test('rows past the last checkpoint that differ from bridge.db retain the generation, and the table is snapshotted again', async (t) => {
  const home = await legacyHome();
  t.after(() => home.cleanup());
  const { snapshot, end } = await stoppedInTags(home);
  writePastCheckpoint(home, snapshot, end, true);
  const manifest = (await assertVerifiedCopy(home)) as { retained: Array<{ retainedAs: string }>; tables: Record<string, { generation: number }> };
  assert.deepEqual(manifest.retained.map((r) => r.retainedAs), ['retained_history_tags_g0']);
  assert.equal(manifest.tables.history_tags?.generation, 1);
  assert.ok(tableNames(snapshot).includes('retained_history_tags_g0'));
});

test('a retain whose rename committed without its record is completed on resume', async (t) => {
  const home = await legacyHome();
  t.after(() => home.cleanup());
  const { snapshot } = await stoppedInTags(home);
  // The snapshot side of a retain of generation 0: renamed, and the next generation's table created.
  const db = new Database(snapshot);
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'history_tags'").pluck().get() as string;
  db.exec('ALTER TABLE history_tags RENAME TO retained_history_tags_g0');
  db.exec(sql);
  db.close();
  const manifest = (await assertVerifiedCopy(home)) as { retained: Array<{ retainedAs: string }>; tables: Record<string, { generation: number }> };
  assert.deepEqual(manifest.retained.map((r) => r.retainedAs), ['retained_history_tags_g0']);
  assert.equal(manifest.tables.history_tags?.generation, 1);
});
