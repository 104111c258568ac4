// The writer thread (actors/writer-worker.ts, driven through
// src/service/writer-client.ts): during capture it owns history.db's
// writable connection, and the history worker reads and parses the next
// batch while it commits. What callers rely on: a reply, synchronous or
// sent, reflects everything sent before it; a retained generation crosses
// a page at a time, byte for byte; store errors cross as their HistoryError
// codes; a sent commit moves its chunks' bytes to the writer thread, and a
// chunk whose bytes are gone is refused; a chunk commits only where its
// source's committed cursor ends, so a batch sent behind one that failed
// cannot skip what it left out; a closed or unopenable writer says so. And, end to end, a capture whose store is locked by someone else for
// longer than the busy timeout reads the refused batches again from the
// committed cursors and stores every byte exactly once, in file order.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { MessagePort } from 'node:worker_threads';
import { HistoryError } from '../protocols/errors.ts';
import type { CommitChunk } from '../protocols/history.ts';
import { RETAINED_PAGE } from '../src/store/records.ts';
import { openWriter } from '../src/store/open.ts';
import { WriterClient } from '../src/service/writer-client.ts';
import { claudeLineChunk, claudePlan } from './helpers/commit-chunks.ts';
import { cli, envFor, tempDir } from './helpers/home.ts';
import { claudeSession } from './helpers/mirror.ts';
import { tilingProblems, withStore } from './helpers/store.ts';

const SESSION = '70000000-0000-4000-8000-000000000001';
const PLAN = claudePlan(SESSION);
const PATH = PLAN.id;

/** A store with the current schema, made as the supervisor's own connection makes it before capture starts. */
function newStore(): string {
  const path = join(tempDir(), 'history.db');
  openWriter(path).close();
  return path;
}

/** Batches of one line each of `plan`'s source, continuing at `offset`: each commits one record. */
function lineChunks(count: number, from = 0, plan = PLAN): { chunks: CommitChunk[]; bytes: Uint8Array[] } {
  const chunks: CommitChunk[] = [];
  const bytes: Uint8Array[] = [];
  let offset = from;
  for (let n = 0; n < count; n++) {
    const chunk = claudeLineChunk(plan, offset, `threadword${n} ${'é'.repeat(n)} line ${n}`);
    chunks.push(chunk);
    bytes.push(chunk.bytes.slice()); // a copy: a sent commit takes its chunks' bytes along
    offset += chunk.bytes.length;
  }
  return { chunks, bytes };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

describe('the writer thread', () => {
  it('answers asks and sent messages in the order they were sent, and pages a retained generation through', async () => {
    const client = await WriterClient.open(newStore());
    try {
      assert.equal(client.ask({ type: 'register', plans: [PLAN] }), 1);
      const count = RETAINED_PAGE * 3 + 2;
      const { chunks, bytes } = lineChunks(count);
      const sent = chunks.map((chunk) => client.send({ type: 'commit', chunks: [chunk], rows: [] }));
      // Moved, not copied: the sender's views on the chunks' bytes are empty now.
      assert.deepEqual(new Set(chunks.map((chunk) => chunk.bytes.byteLength)), new Set([0]));
      // Asked after the sends, answered after them: the cursor already stands after the last line.
      const total = bytes.reduce((n, b) => n + b.length, 0);
      const stored = client.ask({ type: 'loadSources' }).find((s) => s.id === PATH);
      assert.equal(stored?.cursor.offset, total);
      const replies = await Promise.all(sent);
      let end = 0;
      for (const [i, reply] of replies.entries()) {
        end += (bytes[i] as Uint8Array).length;
        assert.deepEqual(reply.value.cursors.map(([id, cursor]) => [id, cursor.offset]), [[PATH, end]], `commit ${i}`);
        assert.equal(reply.value.records, 1);
        assert.ok(reply.ms >= 0);
      }
      // More records than a page: they cross a page at a time, in offset order, byte for byte.
      const records = [...client.ask({ type: 'retained', source: PATH, generation: 0 })];
      assert.equal(records.length, count);
      assert.deepEqual(Buffer.concat(records.map((r) => r.raw)), Buffer.concat(bytes));
      assert.deepEqual(
        records.map((r) => r.offset),
        bytes.map((_, i) => bytes.slice(0, i).reduce((n, b) => n + b.length, 0)),
      );
    } finally {
      await client.close();
    }
  });

  it('passes a store error on as its HistoryError: to a sent commit and to an ask', async () => {
    const path = newStore();
    const client = await WriterClient.open(path);
    const other = new Database(path);
    try {
      client.ask({ type: 'register', plans: [PLAN] });
      other.exec('BEGIN IMMEDIATE'); // held past the writer's busy timeout
      const { chunks } = lineChunks(1);
      const error = await rejection(client.send({ type: 'commit', chunks, rows: [] }));
      assert.ok(error instanceof HistoryError, String(error));
      assert.equal(error.code, 'STORE_BUSY');
      assert.throws(() => client.ask({ type: 'touch', id: PATH, facts: { mtimeMs: 1 } }), (e: unknown) => e instanceof HistoryError && e.code === 'STORE_BUSY');
      other.exec('ROLLBACK');
      // Its bytes went with the refused commit: sent again, the chunk is refused, not stored empty.
      const resent = await rejection(client.send({ type: 'commit', chunks, rows: [] }));
      assert.ok(resent instanceof HistoryError && resent.code === 'INTERNAL' && /no bytes/.test(resent.message), String(resent));
      // Nothing was half-written: the same line, read again, commits once the lock is gone.
      const reply = await client.send({ type: 'commit', chunks: lineChunks(1).chunks, rows: [] });
      assert.equal(reply.value.records, 1);
      assert.equal(client.ask({ type: 'loadSources' }).find((s) => s.id === PATH)?.cursor.offset, lineChunks(1).bytes[0]?.length);
    } finally {
      other.close();
      await client.close();
    }
  });

  it('commits a chunk only where its source\'s committed cursor ends: what a refused batch left out, no later batch skips', async () => {
    const client = await WriterClient.open(newStore());
    const other = claudePlan('70000000-0000-4000-8000-000000000002');
    try {
      client.ask({ type: 'register', plans: [PLAN, other] });
      const { chunks, bytes } = lineChunks(3);
      const [first, second, third] = chunks as [CommitChunk, CommitChunk, CommitChunk];
      await client.send({ type: 'commit', chunks: [first], rows: [] });
      // Sent back to back, as the capture loop sends a batch before the one ahead of it is answered. The first fails
      // in the writer thread (its chunk names a conversation nobody registered); the second continues its chunk; the
      // third is another source's and depends on neither.
      const refused = client.send({ type: 'commit', chunks: [{ ...second, conversation: 'claude:unregistered' }], rows: [] });
      const behind = client.send({ type: 'commit', chunks: [third], rows: [] });
      const independent = client.send({ type: 'commit', chunks: lineChunks(1, 0, other).chunks, rows: [] });
      assert.ok((await rejection(refused)) instanceof Error);
      const gap = await rejection(behind);
      assert.ok(gap instanceof HistoryError && gap.code === 'INTERNAL', String(gap));
      const firstEnd = (bytes[0] as Uint8Array).length;
      assert.match(gap.message, new RegExp(`offset ${firstEnd + (bytes[1] as Uint8Array).length} does not continue its committed cursor \\(generation 0, offset ${firstEnd}\\)`));
      assert.equal((await independent).value.records, 1);
      const cursors = new Map(client.ask({ type: 'loadSources' }).map((s) => [s.id, s.cursor]));
      assert.equal(cursors.get(PATH)?.offset, firstEnd, 'the cursor stays where the last commit of the source left it');
      assert.deepEqual(Buffer.concat([...client.ask({ type: 'retained', source: PATH, generation: 0 })].map((r) => r.raw)), Buffer.from(bytes[0] as Uint8Array));
      // An older generation, or a newer one that does not start at its first byte, is refused too.
      const [again] = lineChunks(1, firstEnd).chunks as [CommitChunk];
      const older = await rejection(client.send({ type: 'commit', chunks: [{ ...again, generation: -1 }], rows: [] }));
      assert.ok(older instanceof HistoryError && /does not continue/.test(older.message), String(older));
      const [late] = lineChunks(1, firstEnd).chunks as [CommitChunk];
      const newer = await rejection(client.send({ type: 'commit', chunks: [{ ...late, generation: 1 }], rows: [] }));
      assert.ok(newer instanceof HistoryError && /does not continue/.test(newer.message), String(newer));
      // Read again from the committed cursor, the rest commits in order.
      const rest = lineChunks(2, firstEnd).chunks;
      const reply = await client.send({ type: 'commit', chunks: rest, rows: [] });
      assert.equal(reply.value.records, 2);
    } finally {
      await client.close();
    }
  });

  it('reads a 0.29.17 run log\'s visit count as offset 0 until capture saves a cursor, then its bytes, also after a failed commit', async () => {
    const path = newStore();
    const client = await WriterClient.open(path);
    const other = new Database(path);
    try {
      client.ask({ type: 'register', plans: [PLAN] });
      // As the 0.29.17 ingestor left an OpenCode job's run log: format 'sqlite', its offset a count of visits.
      other.prepare("UPDATE conversation_sources SET format = 'sqlite', offset = 2 WHERE id = ?").run(PATH);
      const offsetOf = (): number | undefined => client.ask({ type: 'loadSources' }).find((s) => s.id === PATH)?.cursor.offset;
      assert.equal(offsetOf(), 0);
      const { chunks, bytes } = lineChunks(2);
      const [first, second] = chunks as [CommitChunk, CommitChunk];
      await client.send({ type: 'commit', chunks: [first], rows: [] });
      const firstEnd = (bytes[0] as Uint8Array).length;
      assert.equal(offsetOf(), firstEnd, 'once captured, the offset counts bytes');
      // A failed commit drops the writer's cached cursors; the next chunk still continues the stored one.
      await rejection(client.send({ type: 'commit', chunks: [{ ...second, conversation: 'claude:unregistered' }], rows: [] }));
      const [again] = lineChunks(2).chunks.slice(1) as [CommitChunk];
      assert.equal((await client.send({ type: 'commit', chunks: [again], rows: [] })).value.records, 1);
      assert.equal(offsetOf(), firstEnd + (bytes[1] as Uint8Array).length);
    } finally {
      other.close();
      await client.close();
    }
  });

  it('refuses a store it cannot open, and every ask once closed', async () => {
    const damaged = join(tempDir(), 'history.db');
    writeFileSync(damaged, Buffer.alloc(8192, 0x5a));
    const refused = await rejection(WriterClient.open(damaged));
    assert.ok(refused instanceof HistoryError && refused.code === 'STORE_CORRUPT', String(refused));

    const client = await WriterClient.open(newStore());
    const counted = client.send({ type: 'counts' });
    await client.close();
    // What was sent before the close was answered.
    assert.equal((await counted).value.records, 0);
    assert.throws(() => client.ask({ type: 'counts' }), (e: unknown) => e instanceof HistoryError && e.code === 'STOPPED');
    const error = await rejection(client.send({ type: 'counts' }));
    assert.ok(error instanceof HistoryError && error.code === 'STOPPED', String(error));
  });
});

describe('a writer thread that ends on its own', () => {
  it('is reported once as lost, and every ask fails after; a closed one is not lost', async () => {
    const lost: HistoryError[] = [];
    const client = await WriterClient.open(newStore(), (error) => lost.push(error));
    assert.equal(client.ask({ type: 'counts' }).records, 0);
    // A fault inside the thread: a request it cannot even reply to throws there, uncaught, and the thread dies.
    (client as unknown as { port: MessagePort }).port.postMessage(null);
    for (let i = 0; i < 100 && lost.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(lost.length, 1, 'lost once');
    assert.equal(lost[0]?.code, 'STOPPED');
    assert.throws(() => client.ask({ type: 'counts' }), (e: unknown) => e instanceof HistoryError && e.code === 'STOPPED');
    const error = await rejection(client.send({ type: 'counts' }));
    assert.ok(error instanceof HistoryError && error.code === 'STOPPED', String(error));
    await client.close();
    assert.equal(lost.length, 1, 'closing a lost writer reports nothing more');

    const calm: HistoryError[] = [];
    const closed = await WriterClient.open(newStore(), (e) => calm.push(e));
    await closed.close();
    assert.deepEqual(calm, [], 'a writer ended by close() is not lost');
  });
});

/**
 * `ingest --once` of `home` while another connection holds history.db's write lock for 4.5 s once `after` records
 * are in: longer than the writer's 3 s busy timeout, so the batches in flight then fail. Returns how many records
 * were in when the lock was taken, and how many in the end.
 */
async function captureThroughLock(home: string, after = 1): Promise<{ lockedAt: number; total: number }> {
  const env = envFor(home, { AGENT_BRIDGE_HISTORY_MIRRORS: 'off' });
  const historyDb = join(home, '.agent-bridge', 'history.db');
  const run = cli(['ingest', '--once', '--pace', 'max', '--json'], env);
  let lockedAt = -1;
  const deadline = Date.now() + 120_000;
  while (lockedAt < 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    let db: Database.Database;
    try {
      db = new Database(historyDb, { fileMustExist: true });
    } catch {
      continue; // not created yet
    }
    try {
      db.pragma('busy_timeout = 0');
      const records = (() => {
        try {
          return db.prepare('SELECT count(*) FROM conversation_records').pluck().get() as number;
        } catch {
          return 0; // schema not there yet
        }
      })();
      if (records >= after) {
        try {
          db.exec('BEGIN IMMEDIATE');
        } catch {
          continue; // the writer holds it this instant
        }
        lockedAt = records;
        await new Promise((resolve) => setTimeout(resolve, 4500));
        db.exec('ROLLBACK');
      }
    } finally {
      db.close();
    }
  }
  const result = await run;
  assert.equal(result.code, 0, result.stderr);
  const total = withStore(home, (db) => db.prepare('SELECT count(*) FROM conversation_records').pluck().get() as number);
  return { lockedAt, total };
}

/** Every file's bytes stored once, in file order, with no gap or overlap; records committed in file order. */
function assertStoredOnce(home: string, files: readonly string[]): void {
  withStore(home, (db) => {
    assert.deepEqual(tilingProblems(db), []);
    // Committed in file order: a conversation reads its records in id order.
    const outOfOrder = db
      .prepare('SELECT count(*) FROM conversation_records a JOIN conversation_records b ON a.source = b.source AND a.generation = b.generation AND a.offset < b.offset AND a.id > b.id')
      .pluck()
      .get();
    assert.equal(outOfOrder, 0, 'records committed out of file order');
    const stored = db.prepare('SELECT r.raw FROM conversation_records r JOIN conversation_sources s ON s.id = r.source WHERE s.path = ? AND r.generation = 0 ORDER BY r.offset').pluck();
    for (const file of files) assert.deepEqual(Buffer.concat(stored.all(file) as Buffer[]), readFileSync(file), file);
  });
}

describe('capture with its store locked by another connection', () => {
  it('retries its batches in order once the lock is gone: every byte stored once', async () => {
    const home = tempDir();
    const files: string[] = [];
    // About 12 MB in 64 KiB chunks: hundreds of batches, so the lock falls in the middle of the capture.
    for (let i = 0; i < 6; i++) files.push(claudeSession(home, { session: `71000000-0000-4000-8000-00000000000${i}`, lines: 800, word: 'lockotter', fill: 2500 }));
    const { lockedAt, total } = await captureThroughLock(home);
    assert.ok(lockedAt > 0 && lockedAt < total, `the lock was taken mid-capture (${lockedAt} of ${total} records)`);
    assertStoredOnce(home, files);
  });

  it('of many small files: a batch sent behind a failed one commits what did not depend on it, and the rest is read again', async () => {
    const home = tempDir();
    const files: string[] = [];
    // Files of one chunk each (about 20 KB), so a batch and the one sent behind it hold different files: when the
    // first fails on the lock, the second commits once the lock is gone, and the capture goes on from both outcomes.
    for (let i = 0; i < 600; i++) {
      files.push(claudeSession(home, { session: `73000000-0000-4000-8000-${String(i).padStart(12, '0')}`, lines: 8, word: 'smallotter', fill: 2500 }));
    }
    // Well into the capture: past the first discovery pass, whose questions to the writer thread would wait on the lock too.
    const { lockedAt, total } = await captureThroughLock(home, 200);
    assert.ok(lockedAt > 0 && lockedAt < total, `the lock was taken mid-capture (${lockedAt} of ${total} records)`);
    assertStoredOnce(home, files);
  });
});

describe('lanes while a batch is in flight', () => {
  it('a source that had its turn yields to a waiting one before it is read to its end', async () => {
    const home = tempDir();
    // Three files of about 6 MB: each takes far more than one turn (32 batches of about 64 KiB from each lane).
    const ids = ['72000000-0000-4000-8000-000000000001', '72000000-0000-4000-8000-000000000002', '72000000-0000-4000-8000-000000000003'];
    const files = ids.map((session) => claudeSession(home, { session, lines: 2400, word: 'turnotter', fill: 2500 }));
    const run = await cli(['ingest', '--once', '--pace', 'max'], envFor(home, { AGENT_BRIDGE_HISTORY_MIRRORS: 'off' }));
    assert.equal(run.code, 0, run.stderr);
    withStore(home, (db) => {
      // Record ids are commit order: [first, last] of each file.
      const span = (file: string): [number, number] =>
        Object.values(db.prepare('SELECT min(r.id) AS first, max(r.id) AS last FROM conversation_records r JOIN conversation_sources s ON s.id = r.source WHERE s.path = ?').get(file) as object) as [number, number];
      const spans = files.map(span).sort((a, b) => a[0] - b[0]);
      const [a, b, c] = spans as [[number, number], [number, number], [number, number]];
      // Two lanes at a time: the third file starts once one of the first two had its turn, while both still have bytes left.
      assert.ok(c[0] < a[1] && c[0] < b[1], `the third file started at record ${c[0]}, after the first two ended at ${a[1]} and ${b[1]}`);
    });
  });
});
