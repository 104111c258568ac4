// The WAL checkpointer (src/store/checkpointer.ts) on real SQLite files: a
// second connection copies what the writer committed into the database file
// once CHECKPOINT_WAL_BYTES of WAL wait, while the writer's own
// autocheckpoint (set far higher, as capture's is) never runs; at rest it
// copies whatever is left; it never waits for a writer holding a
// transaction. And in a serving HistoryService, a store at rest after a
// capture has its whole WAL copied into the database file.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { resolvePaths } from '../src/config/paths.ts';
import { HistoryService } from '../src/service/history-service.ts';
import { WalCheckpointer, type CheckpointRow } from '../src/store/checkpointer.ts';
import { CHECKPOINT_WAL_BYTES, openWriter } from '../src/store/open.ts';
import { envFor, fixtureHome, tempDir } from './helpers/home.ts';

const MiB = 1024 * 1024;
const WRITER_AUTOCHECKPOINT_BYTES = 256 * MiB;

function stores(): { path: string; writer: Database.Database; other: Database.Database } {
  const path = join(tempDir(), 'history.db');
  const writer = openWriter(path, { checkpointWalBytes: WRITER_AUTOCHECKPOINT_BYTES });
  writer.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
  const pageBytes = writer.pragma('page_size', { simple: true }) as number;
  assert.equal(writer.pragma('wal_autocheckpoint', { simple: true }), WRITER_AUTOCHECKPOINT_BYTES / pageBytes, "the writer's own checkpoints are far off");
  return { path, writer, other: openWriter(path) };
}

/** The blobs of the database file alone (a copy without its WAL): what checkpoints have copied into it. */
function blobsInFile(path: string): Buffer[] {
  const copy = join(tempDir(), 'copy.db');
  copyFileSync(path, copy);
  const db = new Database(copy, { readonly: true });
  try {
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'blobs'").get() === undefined) return []; // the table itself is still in the WAL
    return (db.prepare('SELECT body FROM blobs ORDER BY id').all() as Array<{ body: Buffer }>).map((row) => row.body);
  } finally {
    db.close();
  }
}

describe('the WAL checkpointer', () => {
  it('copies what the writer committed into the database file once enough WAL waits', () => {
    const { path, writer, other } = stores();
    const checkpointer = new WalCheckpointer(other);
    const insert = writer.prepare('INSERT INTO blobs (body) VALUES (?)');
    const bodies: Buffer[] = [];
    const ran: CheckpointRow[] = [];
    for (let i = 0; i < 12; i++) {
      const body = randomBytes(MiB);
      bodies.push(body);
      insert.run(body);
      const result = checkpointer.step(false);
      if (result !== null) ran.push(result);
      if (i === 0) assert.equal(ran.length, 0, `under ${CHECKPOINT_WAL_BYTES} bytes of WAL waiting, nothing is copied`);
    }
    assert.ok(ran.length >= 2 && ran.length <= 12 / (CHECKPOINT_WAL_BYTES / MiB), `${ran.length} checkpoints for 12 MiB`);
    const last = ran.at(-1);
    assert.equal(last?.checkpointed, last?.log, 'each copies every committed frame');
    const copied = blobsInFile(path);
    assert.ok(copied.length >= 8, `${copied.length} of 12 blobs are in the database file itself`);
    copied.forEach((body, i) => assert.ok(body.equals(bodies[i] as Buffer), `blob ${i} whole`));
    writer.close();
    other.close();
  });

  it('at rest, copies whatever is left', () => {
    const { path, writer, other } = stores();
    const checkpointer = new WalCheckpointer(other);
    const body = randomBytes(MiB);
    writer.prepare('INSERT INTO blobs (body) VALUES (?)').run(body);
    assert.equal(checkpointer.step(false), null);
    assert.deepEqual(blobsInFile(path), [], 'still only in the WAL');
    assert.notEqual(checkpointer.step(true), null);
    assert.deepEqual(blobsInFile(path), [body]);
    assert.equal(checkpointer.step(true), null, 'nothing left: nothing run');
    writer.close();
    other.close();
  });

  it('never waits for a writer in the middle of a transaction', () => {
    const { writer, other } = stores();
    const checkpointer = new WalCheckpointer(other);
    const insert = writer.prepare('INSERT INTO blobs (body) VALUES (?)');
    insert.run(randomBytes(MiB));
    other.pragma('busy_timeout = 0'); // a checkpoint that needed the writer's lock would come back busy
    writer.exec('BEGIN IMMEDIATE');
    insert.run(randomBytes(MiB));
    const result = checkpointer.step(true);
    assert.notEqual(result, null);
    assert.equal(result?.busy, 0, 'not held up');
    assert.equal(result?.checkpointed, result?.log, 'every committed frame copied beside the open transaction');
    writer.exec('COMMIT');
    writer.close();
    other.close();
  });

  it('leaves a serving store at rest with its whole WAL copied', async () => {
    const { home } = fixtureHome();
    const env = envFor(home);
    const service = new HistoryService({ env, mode: 'serve', pace: 'max' });
    await service.start();
    try {
      let seen = { log: -1, checkpointed: -2 };
      for (let i = 0; i < 300; i++) {
        const status = await service.status();
        if (status.discovery.passes > 0 && status.backlog.sources === 0 && status.batches.committed > 0) {
          const db = new Database(resolvePaths(env).historyDb, { readonly: true });
          try {
            seen = (db.pragma('main.wal_checkpoint(NOOP)') as Array<typeof seen>)[0] as typeof seen;
          } finally {
            db.close();
          }
          if (seen.log > 0 && seen.checkpointed === seen.log) break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(seen.log > 0, 'the capture wrote to the WAL');
      assert.equal(seen.checkpointed, seen.log, "every frame copied, though capture's own checkpoints are at 64 MiB");
    } finally {
      await service.stop();
    }
  });
});
