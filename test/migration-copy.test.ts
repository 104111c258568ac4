// A real 0.29.x home (fixtures/make-bridge-home.mjs) migrates with the
// migration runner the history worker runs (here without the ingestion that
// follows it in the service, which would go on to update cursors and add
// rows): history.db's legacy tables equal the fixture manifest row for row
// (bh-row-v1), bridge.db is unchanged, and the snapshot holds only the
// legacy history tables. test/migration-ingest.test.ts covers the same
// migration through `agent-bridge ingest --once`, followed by ingestion.
//
// bridge.db is compared twice: its main file's bytes (a read-only reader
// never writes the main file; SQLite may create -wal/-shm beside it, which is
// what it does to any WAL reader, so those are not compared) and every
// table's contents against the fixture manifest.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { legacyHome, type TestHome } from './helpers/legacy-home.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { migrateHome } from '../src/migration/migrate-home.ts';
import { readMigrationProgress } from '../src/migration/status.ts';
import { assertFtsKeywords, digests, migrationRow, openRead, snapshotFiles, tableNames } from './helpers/migration-db.ts';
import { migrate } from './helpers/migrate.ts';
import { facetsDrift } from './helpers/store.ts';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

for (const userVersion of [8, 6] as const) {
  test(`a user_version ${userVersion} home migrates: counts and row hashes equal the fixture manifest, bridge.db unchanged`, async (t) => {
    const home = await legacyHome({ userVersion });
    t.after(() => home.cleanup());
    const bridge = home.manifest.databases['bridge.db'];
    const bridgeDb = join(home.home, 'bridge.db');
    const historyDb = join(home.home, 'history.db');

    assert.equal((await migrate(home)).phase, 'verified');

    // history.db: every legacy table exactly as the fixture wrote it (rowids, types, bytes).
    const legacy = bridge.legacyHistoryTables;
    assert.equal(legacy.length, userVersion === 8 ? 14 : 6);
    const copied = await digests(historyDb, legacy);
    for (const name of legacy) assert.deepEqual(copied[name], { rows: bridge.tables[name]?.rows, sha256: bridge.tables[name]?.sha256 }, name);
    // The derived facets of the copied documents (search filters read them) came with them.
    const store = openRead(historyDb);
    try {
      assert.equal(facetsDrift(store), 0);
      assert.ok((store.prepare('SELECT count(*) FROM history_document_facets').pluck().get() as number) > 0, 'documents were copied');
    } finally {
      store.close();
    }

    // The manifest stored in history_migration says the same.
    const row = migrationRow(historyDb);
    assert.equal(row?.status, 'verified');
    const stored = row?.manifest as { rowHash: string; tables: Record<string, { rows: number; sha256: string }>; absent: string[] };
    assert.equal(stored.rowHash, 'bh-row-v1');
    assert.deepEqual(Object.keys(stored.tables), legacy);
    for (const name of legacy) assert.deepEqual({ rows: stored.tables[name]?.rows, sha256: stored.tables[name]?.sha256 }, copied[name], name);
    assert.deepEqual(stored.absent, bridge.legacyHistoryTablesAbsent);

    // bridge.db: main file bytes, every table, user_version.
    const fileDigest = home.manifest.databaseFiles.find((f) => f.path === 'bridge.db')?.sha256;
    assert.equal(sha256(readFileSync(bridgeDb)), fileDigest, 'bridge.db main file bytes changed');
    const hashed = Object.entries(bridge.tables).filter(([, v]) => v.sha256 !== undefined).map(([k]) => k);
    const now = await digests(bridgeDb, hashed);
    for (const name of hashed) assert.deepEqual(now[name], { rows: bridge.tables[name]?.rows, sha256: bridge.tables[name]?.sha256 }, `bridge.db ${name}`);
    const db = openRead(bridgeDb);
    assert.equal(db.pragma('user_version', { simple: true }), bridge.userVersion);
    db.close();

    // The snapshot: one file (and its progress db), only the legacy history tables, no 8 MiB blob.
    const files = snapshotFiles(home.home);
    assert.equal(files.length, 2, files.join(', '));
    const snapshot = join(home.home, '.migration-snapshots', files[0] as string);
    assert.match(files[0] as string, /^bridge-history-v1-[0-9a-f-]{36}\.db$/);
    assert.equal(files[1], `${files[0]}.progress.db`);
    assert.equal(row?.snapshot, snapshot);
    assert.deepEqual(tableNames(snapshot), [...legacy].sort());
    assert.ok(bridge.unrelatedPayloadBytes >= 8 * 1024 * 1024);
    assert.ok(statSync(snapshot).size < bridge.legacyHistoryPayloadBytes * 1.5 + 1024 * 1024, `snapshot is ${statSync(snapshot).size} bytes`);
    assert.equal(statSync(snapshot).mode & 0o777, 0o600);
    assert.deepEqual(await digests(snapshot, legacy), copied);

    // Every chunk stayed within 32 rows and 512 KiB; only a single row may exceed the byte bound.
    const progress = openRead(`${snapshot}.progress.db`);
    const bounds = progress.prepare('SELECT max(rows) AS rows, max(CASE WHEN rows > 1 THEN bytes END) AS multi, max(bytes) AS largest FROM chunks').get() as { rows: number; multi: number; largest: number };
    progress.close();
    assert.ok(bounds.rows <= 32 && bounds.multi <= 512 * 1024, JSON.stringify(bounds));
    if (userVersion === 8) {
      assert.ok(bounds.largest > 512 * 1024, 'the oversized record formed a chunk of its own');
      checkRecordsAndFts(home);
    }
  });
}

/** Records above 512 KiB, with 0x00/0xFF bytes and with REAL `at` keep rowids, types and bytes; FTS was rebuilt by the triggers. */
function checkRecordsAndFts(home: TestHome): void {
  const expected = (home.manifest as unknown as { expected: { bridgeRecords: { records: { maxRawBytes: number; withNulAndFF: number; realAt: number } } } }).expected.bridgeRecords.records;
  const read = (file: string): Array<{ id: number; raw: Buffer; t: string }> => {
    const db = openRead(join(home.home, file));
    try {
      return db
        .prepare("SELECT id, raw, typeof(at) AS t FROM conversation_records WHERE length(raw) > 524288 OR (instr(raw, x'00') > 0 AND instr(raw, x'ff') > 0) OR typeof(at) = 'real' ORDER BY id")
        .all() as Array<{ id: number; raw: Buffer; t: string }>;
    } finally {
      db.close();
    }
  };
  const before = read('bridge.db');
  const after = read('history.db');
  assert.ok(before.some((r) => r.raw.length === expected.maxRawBytes && r.raw.length > 512 * 1024));
  assert.equal(before.filter((r) => r.raw.includes(0x00) && r.raw.includes(0xff)).length, expected.withNulAndFF);
  assert.equal(before.filter((r) => r.t === 'real').length, expected.realAt);
  assert.equal(after.length, before.length);
  after.forEach((r, i) => {
    const b = before[i] as { id: number; raw: Buffer; t: string };
    assert.equal(r.id, b.id);
    assert.equal(r.t, b.t);
    assert.ok(r.raw.equals(b.raw), `record ${r.id} bytes differ`);
  });
  // FTS was rebuilt by the document triggers: the keyword counts match the fixture's.
  assertFtsKeywords(home);
}

test('a fresh home without legacy history is verified at once with an empty manifest', async (t) => {
  const home = await legacyHome();
  t.after(() => home.cleanup());
  for (const fresh of [join(home.root, 'empty-home'), join(home.root, 'broker-only-home')]) {
    mkdirSync(fresh);
    if (fresh.endsWith('broker-only-home')) {
      // A bridge.db with broker tables but no legacy history table.
      const db = new Database(join(fresh, 'bridge.db'));
      db.exec('CREATE TABLE messages (id TEXT NOT NULL, recipient TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (id, recipient))');
      db.close();
    }
    const paths = resolvePaths({ ...home.env, AGENT_BRIDGE_HOME: fresh });
    const result = await migrateHome({ paths, pace: 'max' });
    assert.equal(result.progress.phase, 'verified');
    assert.equal(result.progress.percent, 100);
    const row = migrationRow(paths.historyDb);
    assert.equal(row?.status, 'verified');
    assert.equal(row?.snapshot, null);
    assert.deepEqual((row?.manifest as { tables: object }).tables, {});
    assert.deepEqual(snapshotFiles(fresh), []);
    assert.equal(readMigrationProgress(paths)?.phase, 'verified');
  }
});
