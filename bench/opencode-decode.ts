// Where OpenCode rows are decoded: in the history worker thread, or in the
// parser pool? Prints the in-thread cost of deriving a row's documents
// (sliceDocuments: JSON.parse + text extraction), JSON.parse alone as the
// same-run baseline, and a parser-pool round trip of the same bytes (an
// 'opaque' task: transfer there and back, no work).
//   node --import tsx bench/opencode-decode.ts
// Rows: the fixture database's parts (make-fixtures.mjs), those under 64 KiB
// (one slice: the common case), repeated to 20,000 rows.

import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ParserPool } from '../actors/parser-pool.ts';
import { sliceDocuments } from '../src/sources/opencode/documents.ts';

const root = new URL('..', import.meta.url).pathname;
const home = mkdtempSync(join(tmpdir(), 'abh-bench-oc-'));
execFileSync(process.execPath, [join(root, '..', 'shared', 'fixtures', 'make-fixtures.mjs'), home, '--force', '--sqlite-module', join(root, 'node_modules', 'better-sqlite3')], { stdio: 'ignore' });
const db = new Database(join(home, '.local', 'share', 'opencode', 'opencode.db'), { readonly: true });
const sample = (db.prepare('SELECT CAST(data AS BLOB) AS data FROM part').all() as Array<{ data: Buffer }>).map((r) => r.data).filter((d) => d.length < 64 * 1024);
db.close();
rmSync(home, { recursive: true, force: true });
const rows: Buffer[] = [];
while (rows.length < 20_000) rows.push(...sample);
const bytes = rows.reduce((n, r) => n + r.length, 0);
const mib = bytes / 1024 / 1024;

function time(label: string, body: () => void): number {
  body(); // warm up
  const start = performance.now();
  body();
  const ms = performance.now() - start;
  console.log(`${label}: ${ms.toFixed(1)} ms for ${rows.length} rows (${(mib / (ms / 1000)).toFixed(0)} MiB/s, ${((ms * 1000) / rows.length).toFixed(2)} µs/row)`);
  return ms;
}

const parse = time('JSON.parse (baseline)', () => {
  for (const row of rows) JSON.parse(row.toString('utf8'));
});
const decode = time('sliceDocuments in-thread', () => {
  for (const row of rows) sliceDocuments('part', 0, row, () => new Uint8Array(0));
});
console.log(`decode / JSON.parse: ${(decode / parse).toFixed(2)}x`);

const pool = new ParserPool(1);
const context = { conversation: 'opencode:bench', session: 'bench', ownAgentId: null };
const roundTrips = async (count: number): Promise<number> => {
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const row = rows[i % rows.length] as Buffer;
    await pool.parse({ format: 'opaque', bytes: new Uint8Array(row), offset: 0, startsMidLine: false, carry: '', continues: false, context });
  }
  return performance.now() - start;
};
await roundTrips(500);
const poolMs = await roundTrips(5000);
const perTrip = (poolMs * 1000) / 5000;
console.log(`parser-pool round trip (no work): ${perTrip.toFixed(2)} µs/row`);
console.log(`pool round trip / in-thread decode per row: ${(perTrip / ((decode * 1000) / rows.length)).toFixed(2)}x`);
await pool.stop();
