// The WAL checkpointer (src/store/checkpointer.ts) on real SQLite files: a
// second connection copies what the writer committed into the database file
// once enough was committed, while the writer's own autocheckpoint (set far
// higher, as capture's is) never ran; it never waits for a writer holding a
// transaction; and what it copied reads back whole.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CHECKPOINT_EVERY_RAW_BYTES, WalCheckpointer } from '../src/store/checkpointer.ts';
import { openWriter } from '../src/store/open.ts';
import { tempDir } from './helpers/home.ts';

const MiB = 1024 * 1024;

function stores(): { path: string; writer: Database.Database; other: Database.Database } {
  const path = join(tempDir(), 'history.db');
  const writer = openWriter(path, { checkpointWalBytes: 256 * MiB });
  writer.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
  return { path, writer, other: openWriter(path) };
}

describe('the WAL checkpointer', () => {
  it('copies committed pages into the database file once enough was committed, beside the writer', () => {
    const { path, writer, other } = stores();
    const checkpointer = new WalCheckpointer(other);
    const insert = writer.prepare('INSERT INTO blobs (body) VALUES (?)');
    const bodies: Buffer[] = [];
    const before = statSync(path).size;
    for (let i = 0; i < 8; i++) {
      const body = randomBytes(MiB);
      bodies.push(body);
      insert.run(body);
      checkpointer.committed(body.length);
      // One checkpoint each time CHECKPOINT_EVERY_RAW_BYTES more were committed, none before.
      assert.equal(checkpointer.counts.runs, Math.floor(((i + 1) * MiB) / CHECKPOINT_EVERY_RAW_BYTES));
    }
    assert.ok(checkpointer.counts.runs >= 1);
    // The writer's autocheckpoint (256 MiB) never ran: only the checkpointer moved pages into the file.
    assert.ok(statSync(path).size >= before + 7 * MiB, `the database file grew to ${statSync(path).size} bytes`);
    writer.close();
    other.close();
    const reader = new Database(path, { readonly: true });
    try {
      const rows = reader.prepare('SELECT body FROM blobs ORDER BY id').all() as Array<{ body: Buffer }>;
      assert.equal(rows.length, bodies.length);
      rows.forEach((row, i) => assert.ok(row.body.equals(bodies[i] as Buffer), `blob ${i} reads back whole`));
    } finally {
      reader.close();
    }
  });

  it('never waits for a writer in the middle of a transaction', () => {
    const { writer, other } = stores();
    const checkpointer = new WalCheckpointer(other, MiB);
    const insert = writer.prepare('INSERT INTO blobs (body) VALUES (?)');
    insert.run(randomBytes(MiB));
    other.pragma('busy_timeout = 60000'); // were it to wait for the writer, this test would hang here
    writer.exec('BEGIN IMMEDIATE');
    insert.run(randomBytes(MiB));
    checkpointer.committed(MiB);
    assert.equal(checkpointer.counts.runs, 1, 'it ran while the writer held its transaction');
    writer.exec('COMMIT');
    writer.close();
    other.close();
  });
});
