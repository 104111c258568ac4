// The bh-row-v1 row hash computed inside SQLite (src/migration/row-sql.ts)
// against two independent implementations: the migration's JavaScript
// encoder over rows read cell by cell (src/migration/row-hash.ts) and the
// fixture generator's tableDigest (fixtures/make-bridge-home.mjs). Random
// tables with every storage class, extreme integers, special doubles,
// invalid UTF-8 and NUL bytes in text, empty and large values, cut into
// random rowid ranges.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { prng } from './helpers/home.ts';
import { fixtures } from './helpers/legacy-home.ts';
import { ChunkEncoder, digestOf } from '../src/migration/row-sql.ts';
import { chunkDigest } from '../src/migration/row-hash.ts';
import { RowReader } from '../src/migration/rows.ts';
import { Sha256State } from '../src/migration/sha256-state.ts';

/** A seeded integer in [0, n). */
function rng(seed: number): (n: number) => number {
  const next = prng(seed);
  return (n) => Math.floor(next() * n);
}

const INTEGERS = [0n, 1n, -1n, 255n, 2n ** 31n, -(2n ** 31n), 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n)];
const REALS = [0.5, -0.0, 3.0, 1e308, -1e-308, Number.MIN_VALUE, Math.PI, 2 ** 60 + 0.5, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];

/** SQL for one random cell value (bound as parameters; text made from raw bytes so invalid UTF-8 stays). */
function randomCell(random: (n: number) => number): { sql: string; value: unknown } {
  switch (random(6)) {
    case 0:
      return { sql: 'NULL', value: undefined };
    case 1:
      return { sql: '?', value: INTEGERS[random(INTEGERS.length)] ?? BigInt(random(1 << 30) - (1 << 29)) };
    case 2:
      return { sql: '?', value: REALS[random(REALS.length)] };
    case 3: {
      const bytes = Buffer.from(Array.from({ length: random(3) === 0 ? 5000 + random(3000) : random(40) }, () => random(256)));
      return { sql: 'CAST(? AS TEXT)', value: bytes };
    }
    case 4:
      return { sql: '?', value: Buffer.from(Array.from({ length: random(2) === 0 ? 0 : random(300) }, () => random(256))) };
    default:
      return { sql: '?', value: `plain ✓ Ωmega 東京 ${random(1000)}` };
  }
}

test('bh-row-v1 in SQL equals the JavaScript encoder and the fixture digest, over random rows and random chunk ranges', async () => {
  const { tableDigest } = await fixtures();
  for (let seed = 1; seed <= 6; seed++) {
    const random = rng(seed);
    const db = new Database(':memory:');
    db.defaultSafeIntegers(true);
    const columns = Array.from({ length: 1 + random(6) }, (_, i) => `c${i}`);
    // No declared types: every value keeps the storage class it was inserted with.
    db.exec(`CREATE TABLE t (${columns.map((c) => `"${c}"`).join(', ')})`);
    let rowid = BigInt(random(5)) - 2n;
    for (let r = 0; r < 300; r++) {
      rowid += BigInt(1 + random(4));
      const cells = columns.map(() => randomCell(random));
      const values = cells.filter((c) => c.value !== undefined).map((c) => c.value);
      db.prepare(`INSERT INTO t (rowid, ${columns.join(', ')}) VALUES (?, ${cells.map((c) => c.sql).join(', ')})`).run(rowid, ...values);
    }
    const shape = { name: 't', columns };
    const encoder = new ChunkEncoder(db, shape);
    const reader = new RowReader(db, shape);
    const stream = new Sha256State();
    const whole = createHash('sha256');
    let after: bigint | null = null;
    let rows = 0;
    while (after === null || after < rowid) {
      const end: bigint = (after ?? -5n) + BigInt(1 + random(60));
      const range = { after, end };
      const encoded = encoder.encode(range);
      const read = reader.range(range);
      assert.equal(encoded.rows, read.length);
      assert.equal(digestOf(encoded), chunkDigest(read), `seed ${seed}, rows ${after}..${end}`);
      stream.update(encoded.bytes);
      whole.update(encoded.bytes);
      rows += encoded.rows;
      after = end;
    }
    const expected = tableDigest(db, 't') as { rows: number; sha256: string };
    assert.deepEqual({ rows, sha256: stream.hex() }, expected, `seed ${seed}`);
    assert.equal(whole.digest('hex'), expected.sha256);
    db.close();
  }
});

test('an empty range encodes to no rows and the digest of nothing', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (a TEXT)');
  const encoded = new ChunkEncoder(db, { name: 't', columns: ['a'] }).encode({ after: null, end: 10n });
  assert.equal(encoded.rows, 0);
  assert.equal(digestOf(encoded), chunkDigest([]));
  db.close();
});
