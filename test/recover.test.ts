// A damaged history.db: every command names the file and says to run
// `agent-bridge recover` (never a stack trace or [INTERNAL]); recover salvages
// every readable record into a new store that takes history.db's place, keeps
// the damaged file (and its WAL) beside it unchanged, reports what was lost,
// and captures again, so that every source file still on disk is whole again
// in its newest generation. Damage: bad pages (an interior page, overflow
// pages, leaves, a schema page), a truncated file, a text file and another
// SQLite database in its place, and pages damaged under a live WAL (SIGKILLed
// writer). Also through a running service. Bad pages are dealt to a store with
// 4 KiB pages (what every store made before 16 KiB pages has); a header lost
// with no WAL to say the page size is read from the pages (4, 16, 64 KiB).

import assert from 'node:assert/strict';
import { closeSync, copyFileSync, existsSync, openSync, readFileSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { RecoverOutcome } from '../protocols/recovery.ts';
import { probePageSize } from '../src/recover/sqlite-file.ts';
import { cli, cliJson, sha256, spawnCli, sqliteModule } from './helpers/home.ts';
import { type FixtureHome, fixtureHome, homeEnv, searchTempDir } from './helpers/search-homes.ts';

interface PristineRecord {
  id: number;
  source: string;
  generation: number;
  offset: number;
  conversation: string;
  raw: Buffer;
}

/** The page size in the file's header (a new history.db has 16 KiB pages, older ones 4 KiB; 1 means 65536). */
function pageSizeOf(path: string): number {
  const size = readFileSync(path).readUInt16BE(16);
  return size === 1 ? 65536 : size;
}

function records(path: string): PristineRecord[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT id, source, generation, offset, conversation, raw FROM conversation_records ORDER BY id').all() as PristineRecord[];
  } finally {
    db.close();
  }
}

/** Pages of the pristine store, by b-tree and page type (SQLite's own dbstat, not the code under test). */
function pagesOf(path: string, name: string, type: 'internal' | 'leaf' | 'overflow'): number[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT pageno FROM dbstat WHERE name = ? AND pagetype = ? ORDER BY pageno').pluck().all(name, type) as number[];
  } finally {
    db.close();
  }
}

/**
 * The first leaf of sqlite_schema whose bytes do not name `entry`: damaging it
 * leaves that entry's root page known. Which entries share a leaf depends on
 * the whole schema, so it is looked up, not assumed.
 */
function schemaLeafWithout(path: string, entry: string): number {
  const page = pageSizeOf(path);
  const bytes = readFileSync(path);
  const leaf = pagesOf(path, 'sqlite_schema', 'leaf').find((n) => !bytes.subarray((n - 1) * page, n * page).includes(entry));
  assert.ok(leaf !== undefined, `a schema leaf that does not name ${entry}`);
  return leaf;
}

/** A copy of the store at `path` rebuilt with `pageSize` pages (SQLite's VACUUM; same rows, same ids). */
function withPageSize(path: string, pageSize: number): string {
  const copy = join(searchTempDir(`pages-${pageSize}`), 'history.db');
  copyFileSync(path, copy);
  const db = new Database(copy);
  try {
    db.pragma('journal_mode = DELETE');
    db.pragma(`page_size = ${pageSize}`);
    db.exec('VACUUM');
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
  return copy;
}

function overwritePages(path: string, pages: readonly number[], fill: number): void {
  const page = pageSizeOf(path);
  const bytes = readFileSync(path);
  for (const n of pages) bytes.fill(fill, (n - 1) * page, n * page);
  writeFileSync(path, bytes);
}

function noStackTrace(stderr: string): void {
  assert.doesNotMatch(stderr, /\n\s+at |INTERNAL/, stderr);
}

describe('a damaged history.db', () => {
  let fixture: FixtureHome;
  let pristine: string;
  let originals: PristineRecord[];
  let files: Array<{ id: string; path: string }>;

  before(async () => {
    fixture = await fixtureHome({ fts: true });
    pristine = join(searchTempDir('pristine'), 'history.db');
    copyFileSync(join(fixture.bridgeHome, 'history.db'), pristine);
    originals = records(pristine);
    const db = new Database(pristine, { readonly: true });
    files = db.prepare('SELECT id, path FROM conversation_sources').all() as typeof files;
    db.close();
    assert.ok(originals.length > 50 && files.length > 10);
  });

  /** A bridge home holding a copy of the captured store (or of `source`), damaged by `damage`. */
  function damagedHome(damage: (historyDb: string) => void, source = pristine): { env: NodeJS.ProcessEnv; historyDb: string; digest: string } {
    const bridgeHome = searchTempDir('damaged');
    const historyDb = join(bridgeHome, 'history.db');
    copyFileSync(source, historyDb);
    damage(historyDb);
    return { env: homeEnv(fixture.home, bridgeHome), historyDb, digest: sha256(readFileSync(historyDb)) };
  }

  /** Recover, then check everything a recovery promises. */
  async function recoverAndCheck(env: NodeJS.ProcessEnv, historyDb: string, digests: Record<string, string>): Promise<RecoverOutcome> {
    // Capture off for the recovery itself, so the salvaged store can be compared with the original first.
    const run = await cli(['recover', '--json'], { ...env, AGENT_BRIDGE_HISTORY_INGEST: 'false' });
    assert.equal(run.code, 0, run.stderr);
    const outcome = JSON.parse(run.stdout.toString('utf8')) as RecoverOutcome;
    assert.equal(outcome.outcome, 'recovered');
    const report = outcome.report;
    assert.ok(report !== null);
    const salvagedNewest = new Map<string, { generation: number; hole: boolean; midLine: boolean }>();
    // The damaged files are kept beside it, byte for byte.
    for (const [suffix, digest] of Object.entries(digests)) {
      assert.ok(existsSync(`${report.keptAs}${suffix}`), `kept ${suffix}`);
      assert.equal(sha256(readFileSync(`${report.keptAs}${suffix}`)), digest, `the damaged file${suffix} is unchanged`);
    }
    assert.match(report.keptAs, /history\.db\.corrupt-\d{8}T\d{6}Z$/);
    // The new store is sound and every salvaged record is exactly the original one.
    const db = new Database(historyDb, { readonly: true });
    try {
      assert.equal(db.pragma('quick_check', { simple: true }), 'ok');
      const byId = new Map((db.prepare('SELECT id, source, generation, offset, conversation, raw FROM conversation_records').all() as PristineRecord[]).map((r) => [r.id, r]));
      let kept = 0;
      for (const original of originals) {
        const now = byId.get(original.id);
        if (now === undefined) continue;
        kept++;
        assert.deepEqual({ ...now, raw: sha256(now.raw) }, { ...original, raw: sha256(original.raw) }, `record ${original.id} is salvaged exactly`);
      }
      assert.equal(kept, byId.size, 'nothing but salvaged records');
      for (const file of files) {
        const spans = db.prepare('SELECT generation, offset, length(raw) AS n FROM conversation_records WHERE source = ? ORDER BY generation, offset').all(file.id) as Array<{ generation: number; offset: number; n: number }>;
        const newest = Math.max(-1, ...spans.map((r) => r.generation));
        let end = 0;
        let hole = false;
        let lastByte: number | undefined;
        for (const span of spans.filter((r) => r.generation === newest)) {
          if (span.offset !== end) hole = true;
          end = span.offset + span.n;
        }
        if (spans.length > 0) {
          const last = db.prepare('SELECT raw FROM conversation_records WHERE source = ? AND generation = ? ORDER BY offset DESC LIMIT 1').pluck().get(file.id, newest) as Buffer;
          lastByte = last[last.length - 1];
        }
        salvagedNewest.set(file.id, { generation: newest, hole, midLine: lastByte !== undefined && lastByte !== 10 && !file.path.endsWith('.json') });
      }
      assert.equal(kept, report.salvaged.records, 'the report counts the salvaged records');
      if (report.lost.records !== null) assert.equal(report.lost.records, originals.length - kept, 'the report counts the lost records');
    } finally {
      db.close();
    }
    // Closed: every generation with a hole, and at most those that end inside a line (continued only where the
    // salvaged cursor confirms it); a one-document file (.json) ends where its document ends.
    const closed = new Set(report.recapture.newGenerationSources);
    assert.equal(report.recapture.newGeneration, closed.size);
    for (const [id, g] of salvagedNewest) {
      if (g.hole) assert.ok(closed.has(id), `${id}: a generation with a hole is closed`);
      else if (!g.midLine) assert.ok(!closed.has(id), `${id}: a whole generation ending at a record boundary continues`);
    }
    const capture = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(capture.code, 0, capture.stderr);
    const after = new Database(historyDb, { readonly: true });
    try {
      const db = after;
      // Capture ran again: every source file on disk is whole in its newest generation.
      for (const file of files) {
        if (!existsSync(file.path)) continue;
        const newest = db.prepare('SELECT max(generation) FROM conversation_records WHERE source = ?').pluck().get(file.id) as number;
        const bytes = Buffer.concat(
          (db.prepare('SELECT raw FROM conversation_records WHERE source = ? AND generation = ? ORDER BY offset').pluck().all(file.id, newest) as Buffer[]),
        );
        assert.ok(bytes.equals(readFileSync(file.path)), `${file.path}: the newest generation is the file`);
        const was = salvagedNewest.get(file.id);
        if (closed.has(file.id)) assert.equal(newest, (was?.generation ?? 0) + 1, `${file.path}: read again as a new generation after the hole`);
        else if (was !== undefined && was.generation >= 0) assert.equal(newest, was.generation, `${file.path}: continues its generation`);
      }
      assert.ok((db.prepare('SELECT count(*) FROM history_documents').pluck().get() as number) > 100, 'the search index was rebuilt');
      assert.equal(db.prepare("SELECT count(*) FROM history_cursors WHERE source = 'reindex'").pluck().get(), 0, 'the reindex finished');
    } finally {
      db.close();
    }
    const found = await cliJson<{ hits: unknown[] }>(['search', 'orchard', '--json'], env);
    assert.ok(found.hits.length > 0, 'search finds captured words again');
    return outcome;
  }

  it('bad pages: every command says which file and what to do; recover salvages, keeps the file, reports the loss', async () => {
    // A store with 4 KiB pages (every store made before new ones had 16 KiB pages): its schema, sources and records
    // span enough pages that each damaged one below takes part of them, not all.
    const store = withPageSize(pristine, 4096);
    const leaves = pagesOf(store, 'conversation_records', 'leaf');
    const overflow = pagesOf(store, 'conversation_records', 'overflow');
    const damage = [
      ...pagesOf(store, 'conversation_records', 'internal'), // every leaf becomes an orphan: found by the page scan
      ...overflow.filter((_, i) => i % 25 === 3), // records lost: holes in the middle of files, and tails
      leaves[leaves.length - 1] as number,
      // A schema leaf, but not the one naming the records' index: its walk is what counts the lost records.
      schemaLeafWithout(store, 'sqlite_autoindex_conversation_records_1'),
      pagesOf(store, 'conversation_sources', 'leaf')[0] as number,
    ];
    assert.ok(pagesOf(store, 'sqlite_schema', 'leaf').length > 1, 'the schema spans pages');
    const { env, historyDb, digest } = damagedHome((path) => overwritePages(path, damage, 0xa5), store);
    for (const args of [['status'], ['status', '--json'], ['search', 'orchard'], ['conversation', 'claude:x'], ['sources'], ['raw', files[0]?.id as string], ['ingest', '--once']]) {
      const run = await cli(args, env);
      assert.equal(run.code, 1, `${args.join(' ')} fails`);
      const said = args[0] === 'status' ? run.stdout.toString('utf8') : run.stderr;
      assert.ok(said.includes(historyDb), `${args.join(' ')} names the file: ${said}`);
      assert.match(said, /damaged .*agent-bridge recover/s, `${args.join(' ')} says what to do`);
      noStackTrace(run.stderr);
    }
    assert.equal(sha256(readFileSync(historyDb)), digest, 'no command changed the damaged file');

    const outcome = await recoverAndCheck(env, historyDb, { '': digest });
    const report = outcome.report!;
    assert.ok(report.salvaged.fromOrphanPages > 0, 'records below the damaged interior page were found by the page scan');
    assert.ok((report.lost.records ?? 0) >= 1, 'the records on the damaged pages are reported lost');
    assert.ok(report.lost.sources.length >= 1 && report.lost.generations.length >= 1);
    for (const g of report.lost.generations) assert.ok(g.missing.every(([from, to]) => to > from));
    assert.equal(report.recapture.newGeneration + report.recapture.continued + report.recapture.fromStart, files.length, 'every file source has a cursor');
    assert.ok(report.recapture.newGeneration >= 1, 'a generation with a hole in the middle is read again as a new one');

    const again = await cli(['recover'], env);
    assert.equal(again.code, 0);
    assert.match(again.stdout.toString('utf8'), /not damaged/);
  });

  it('a truncated file', async () => {
    const { env, historyDb, digest } = damagedHome((path) => {
      const page = pageSizeOf(path);
      truncateSync(path, Math.floor((statSync(path).size * 0.55) / page) * page);
    });
    const search = await cli(['search', 'orchard'], env);
    assert.equal(search.code, 1);
    assert.match(search.stderr, /damaged.*agent-bridge recover/);
    const outcome = await recoverAndCheck(env, historyDb, { '': digest });
    assert.ok(outcome.report!.salvaged.records > 0 && outcome.report!.salvaged.records < originals.length);
  });

  it('a text file and another SQLite database in its place', async () => {
    const opencode = join(fixture.home, '.local', 'share', 'opencode', 'opencode.db');
    for (const put of [(path: string) => writeFileSync(path, '{"not": "a database"}\n'), (path: string) => copyFileSync(opencode, path)]) {
      const { env, historyDb, digest } = damagedHome(put);
      for (const args of [['search', 'orchard'], ['ingest', '--once'], ['sources']]) {
        const run = await cli(args, env);
        assert.equal(run.code, 1, `${args.join(' ')}: ${run.stderr}`);
        assert.ok(run.stderr.includes(historyDb));
        assert.match(run.stderr, /agent-bridge recover/);
        noStackTrace(run.stderr);
      }
      assert.equal(sha256(readFileSync(historyDb)), digest, 'the file in its place is not written to');
      const outcome = await recoverAndCheck(env, historyDb, { '': digest });
      assert.equal(outcome.report!.salvaged.records, 0);
    }
  });

  it('pages damaged under a live WAL (its writer killed): the committed pages in the WAL are read, and the WAL is kept', async () => {
    const bridgeHome = searchTempDir('wal');
    const env = homeEnv(fixture.home, bridgeHome);
    const historyDb = join(bridgeHome, 'history.db');
    copyFileSync(pristine, historyDb);
    // A writer commits a record (it exists only in the WAL, never checkpointed) and is killed.
    const blob = Buffer.from(Array.from({ length: 150_000 }, (_, i) => i % 251));
    const child = spawn(process.execPath, ['-e', `
      const Database = require(${JSON.stringify(sqliteModule)});
      const db = new Database(${JSON.stringify(historyDb)});
      db.pragma('wal_autocheckpoint = 0');
      db.prepare("INSERT INTO conversations (id, agent, session, kind) VALUES ('claude:wal-only', 'claude', 'wal-only', 'transcript')").run();
      db.prepare("INSERT INTO conversation_records (source, generation, offset, conversation, at, raw, body) VALUES ('wal-only-source', 0, 0, 'claude:wal-only', 1, ?, '')").run(Buffer.from(Array.from({ length: ${blob.length} }, (_, i) => i % 251)));
      process.stdout.write('committed');
      setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.ok(statSync(`${historyDb}-wal`).size > blob.length, 'the killed writer left its WAL');
    // Damage the main file: the records' interior page and some overflow pages.
    overwritePages(historyDb, [...pagesOf(pristine, 'conversation_records', 'internal'), ...pagesOf(pristine, 'conversation_records', 'overflow').slice(0, 2)], 0x00);
    const digests = { '': sha256(readFileSync(historyDb)), '-wal': sha256(readFileSync(`${historyDb}-wal`)) };
    const run = await cli(['recover', '--json', '--force'], env);
    assert.equal(run.code, 0, run.stderr);
    const outcome = JSON.parse(run.stdout.toString('utf8')) as RecoverOutcome;
    assert.equal(outcome.outcome, 'recovered');
    for (const [suffix, digest] of Object.entries(digests)) assert.equal(sha256(readFileSync(`${outcome.report!.keptAs}${suffix}`)), digest, `kept${suffix} unchanged`);
    if (existsSync(`${historyDb}-wal`)) assert.notEqual(sha256(readFileSync(`${historyDb}-wal`)), digests['-wal'], 'the old WAL is not beside the new store');
    const db = new Database(historyDb, { readonly: true });
    const walOnly = db.prepare("SELECT raw FROM conversation_records WHERE source = 'wal-only-source'").pluck().get() as Buffer | undefined;
    db.close();
    assert.ok(walOnly?.equals(blob), 'the record committed only to the WAL is salvaged exactly');
    // recover itself captured again: the files are whole.
    for (const file of files) {
      if (!existsSync(file.path)) continue;
      const raw = await cli(['raw', file.id], env);
      assert.ok(raw.stdout.equals(readFileSync(file.path)), `${file.path} whole again`);
    }
  });

  it('through a running service: it stops capture, recovers, answers, and captures again', async () => {
    // The source rows are read when capture starts: the service meets the damage at once.
    const damage = [pagesOf(pristine, 'conversation_sources', 'leaf')[0] as number, ...pagesOf(pristine, 'conversation_records', 'overflow').slice(10, 12)];
    const { env, historyDb, digest } = damagedHome((path) => overwritePages(path, damage, 0xff));
    const serve = spawnCli(['serve'], env);
    const bridgeHome = join(historyDb, '..');
    try {
      // The service finds the damage when it reads those pages, reports it and waits.
      type Live = { phase: string; lastError: { code: string; message: string } | null };
      let status = null as Live | null;
      for (let i = 0; i < 120 && status?.lastError?.code !== 'STORE_CORRUPT'; i++) {
        await new Promise((r) => setTimeout(r, 500));
        const run = await cli(['status', '--json'], env);
        status = (JSON.parse(run.stdout.toString('utf8')) as { service: Live | null }).service;
      }
      assert.equal(status?.phase, 'failed');
      assert.match(status?.lastError?.message ?? '', /damaged.*agent-bridge recover/);

      const run = await cli(['recover', '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /asked the running history service/);
      const outcome = JSON.parse(run.stdout.toString('utf8')) as RecoverOutcome;
      assert.equal(outcome.outcome, 'recovered');
      assert.equal(sha256(readFileSync(outcome.report!.keptAs)), digest);
      assert.ok(readdirSync(bridgeHome).includes('history.recover.json'));

      // Capture resumes on the new store: the files are whole again, and a new line is found.
      const target = files.find((f) => f.path.endsWith('.jsonl') && f.path.includes('/.claude/')) as { id: string; path: string };
      for (let i = 0; i < 120; i++) {
        await new Promise((r) => setTimeout(r, 500));
        const raw = await cli(['raw', target.id], env);
        if (raw.code === 0 && raw.stdout.equals(readFileSync(target.path))) break;
      }
      const raw = await cli(['raw', target.id], env);
      assert.ok(raw.stdout.equals(readFileSync(target.path)));
    } finally {
      serve.kill('SIGTERM');
      await new Promise((r) => serve.once('exit', r));
    }
  });
});


describe('the page size of a file whose header is damaged', () => {
  it('is read from the pages themselves when no WAL says it: 4 KiB, 16 KiB and 64 KiB stores, also with a wiped start', () => {
    for (const size of [4096, 16384, 65536]) {
      const path = join(searchTempDir(`page-${size}`), 'history.db');
      const db = new Database(path);
      db.pragma(`page_size = ${size}`);
      db.exec('CREATE TABLE records (id INTEGER PRIMARY KEY, raw BLOB); CREATE INDEX records_raw ON records (length(raw))');
      const insert = db.prepare('INSERT INTO records (raw) VALUES (?)');
      // Rows of every size, a few larger than a page: leaves, interior pages and overflow chains.
      for (let n = 0; n < 3000; n++) insert.run(Buffer.alloc(((n * 7919) % 9000) + (n % 97 === 0 ? 3 * size : 0), n % 251));
      db.close();
      const bytes = readFileSync(path);
      assert.equal(bytes.readUInt16BE(16), size === 65536 ? 1 : size);
      bytes.fill(0xa5, 0, 100); // the header, page size included
      writeFileSync(path, bytes);
      const probe = (): number => {
        const fd = openSync(path, 'r');
        try {
          return probePageSize(fd, bytes.length);
        } finally {
          closeSync(fd);
        }
      };
      assert.equal(probe(), size);
      // The first 2 MiB wiped as well: the pages after them still say it.
      bytes.fill(0, 0, 2 * 1024 * 1024);
      writeFileSync(path, bytes);
      assert.equal(probe(), size, `${size} with its first 2 MiB zeroed`);
    }
  });
});
