// OpenCode capture end to end through the CLI, on the generated fixture home:
// every keyword in the session the manifest names, exact slices, ancestry at
// every depth, the provider database untouched, the legacy JSON store, a
// reindex that restores the same results, and a later observation
// (opencode-revision-1.sql) that appends revisions without touching old ones.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { cli, cliJson, envFor, fixtureHome, sha256, sqliteModule, type FixtureManifest } from './helpers/home.ts';
import { totals, withStore } from './helpers/store.ts';
import { fileDigest, OPENCODE_DIR, readRows, type KeywordRows, type OpencodeManifest } from './helpers/opencode.ts';

interface Hit {
  id: string;
  conversation: string | null;
  agent: string;
  project: string | null;
  snippet: string;
}

function opencodeOf(manifest: FixtureManifest): OpencodeManifest {
  return manifest.opencode as OpencodeManifest;
}

function keywords(manifest: FixtureManifest): Array<[string, KeywordRows]> {
  return (Object.entries(manifest.keywords) as Array<[string, KeywordRows]>).filter(([, k]) => k.agent === 'opencode');
}

async function search(env: NodeJS.ProcessEnv, query: string, ...flags: string[]): Promise<Hit[]> {
  return (await cliJson<{ hits: Hit[] }>(['search', query, '--json', '--limit', '50', ...flags], env)).hits;
}

async function ingest(env: NodeJS.ProcessEnv): Promise<void> {
  const run = await cli(['ingest', '--once', '--pace', 'max'], env);
  assert.equal(run.code, 0, run.stderr);
}

/** Every record of the home's store, `source|generation|offset` → the sha256 of its bytes. */
function recordDigests(home: string): Map<string, string> {
  const rows = withStore(home, (db) => db.prepare('SELECT source, generation, offset, raw FROM conversation_records').all()) as Array<{ source: string; generation: number; offset: number; raw: Buffer }>;
  return new Map(rows.map((r) => [`${r.source}|${r.generation}|${r.offset}`, sha256(r.raw)]));
}

/** The session of each row a keyword is in (the manifest omits it for a revised part: look it up). */
function keywordSessions(dbPath: string, rows: Array<{ table: string; id: string; session_id?: string }>): Set<string> {
  return new Set(rows.map((row) => row.session_id ?? readRows<{ session_id: string }>(dbPath, `SELECT session_id FROM ${row.table} WHERE id = ?`, row.id)[0]?.session_id ?? '?'));
}

describe('OpenCode capture of the fixture home', () => {
  let home: string;
  let manifest: FixtureManifest;
  let env: NodeJS.ProcessEnv;
  let dbPath: string;
  let before0: Record<string, string>;

  before(async () => {
    ({ home, manifest } = fixtureHome());
    env = envFor(home);
    dbPath = join(home, OPENCODE_DIR, 'opencode.db');
    before0 = fileDigest(join(home, OPENCODE_DIR));
    await ingest(env);
  });

  it('finds every OpenCode keyword in exactly the session the manifest names, with agent and project filters', async () => {
    const sessions = opencodeOf(manifest).sessions;
    let checked = 0;
    for (const [word, entry] of keywords(manifest)) {
      const rows = entry.opencodeDb?.base ?? [];
      if (rows.length === 0) continue;
      const expected = keywordSessions(dbPath, rows);
      const all = await search(env, word);
      assert.deepEqual(new Set(all.map((h) => h.conversation)), new Set([...expected].map((s) => `opencode:${s}`)), word);
      for (const session of expected) {
        const directory = sessions.find((s) => s.id === session)?.directory as string;
        const filtered = await search(env, word, '--agent', 'opencode', '--project', directory);
        assert.ok(filtered.some((h) => h.conversation === `opencode:${session}`), `${word} with filters in ${session}`);
        assert.ok(filtered.every((h) => h.agent === 'opencode' && h.project === directory), word);
      }
      assert.deepEqual(await search(env, word, '--agent', 'claude'), [], word);
      checked++;
    }
    assert.ok(checked >= 10, `checked ${checked} keywords`);
  });

  it('finds the tail keyword of the >200 KiB part, whose slices concatenate to its exact data', async () => {
    const [row] = (manifest.keywords.parttailnebula as unknown as KeywordRows).opencodeDb?.base ?? [];
    assert.ok(row !== undefined);
    const hits = await search(env, 'parttailnebula', '--agent', 'opencode');
    assert.deepEqual(hits.map((h) => h.conversation), [`opencode:${row.session_id}`]);
    const [data] = readRows<{ data: Buffer }>(dbPath, 'SELECT CAST(data AS BLOB) AS data FROM part WHERE id = ?', row.id);
    assert.ok(data !== undefined && data.data.length > 200 * 1024);
    const slices = withStore(home, (db) =>
      db.prepare('SELECT offset, raw, part FROM conversation_records WHERE part = ? ORDER BY offset').all(row.id),
    ) as Array<{ offset: number; raw: Buffer; part: string }>;
    assert.ok(slices.length >= 4);
    assert.ok(slices.every((s) => s.raw.length <= 64 * 1024 && s.part === row.id));
    assert.deepEqual(Buffer.concat(slices.map((s) => s.raw)), data.data);
  });

  it('resolves the grandchild and great-grandchild chain through parent_id; the fork is a root', () => {
    const parents = new Map(
      withStore(home, (db) => db.prepare("SELECT id, parent FROM conversations WHERE id LIKE 'opencode:ses_%'").all() as Array<{ id: string; parent: string | null }>).map((r) => [r.id, r.parent]),
    );
    for (const session of opencodeOf(manifest).sessions) {
      assert.equal(parents.get(`opencode:${session.id}`), session.parent_id === null ? null : `opencode:${session.parent_id}`, session.title);
    }
    const deepest = opencodeOf(manifest).sessions.find((s) => s.depth === 4);
    assert.ok(deepest !== undefined);
    let chain = 0;
    for (let id: string | null | undefined = `opencode:${deepest.id}`; id !== null && id !== undefined; id = parents.get(id)) chain++;
    assert.equal(chain, 4);
    const fork = opencodeOf(manifest).sessions.find((s) => s.title.includes('(fork #'));
    assert.equal(parents.get(`opencode:${fork?.id}`), null);
  });

  it('retains session rows per revision and message and part rows with their ids', () => {
    const records = withStore(home, (db) => db.prepare("SELECT source, part FROM conversation_records WHERE source LIKE 'opencode:%'").all()) as Array<{ source: string; part: string }>;
    const kinds = new Set(records.map((r) => r.source.split(':')[2]));
    assert.deepEqual(kinds, new Set(['session', 'message', 'part']));
    for (const record of records) {
      const [, , table, id] = record.source.split(':');
      assert.equal(record.part, table === 'session' ? record.source.split(':')[1] : id, record.source);
    }
    assert.equal(records.filter((r) => r.source.includes(':session:')).length, opencodeOf(manifest).sessions.length);
  });

  it('finds the session that exists only in the legacy JSON store', async () => {
    const hits = await search(env, 'legacyjsonheron', '--agent', 'opencode');
    assert.equal(hits.length, 1);
    assert.match(hits[0]?.conversation ?? '', /^opencode:ses_/);
    assert.equal(readRows(dbPath, 'SELECT id FROM session WHERE id = ?', (hits[0]?.conversation ?? '').slice('opencode:'.length)).length, 0);
  });

  it('leaves the OpenCode database and its directory unchanged (file list, sizes, content)', () => {
    assert.deepEqual(fileDigest(join(home, OPENCODE_DIR)), before0);
  });

  it('adds nothing on a second run', async () => {
    const first = totals(home);
    await ingest(env);
    assert.deepEqual(totals(home), first);
  });

  it('restores identical OpenCode search results after a reindex', async () => {
    const words = [...keywords(manifest).map(([w]) => w), 'crate booking'];
    const results = async (): Promise<string[]> =>
      Promise.all(words.map(async (w) => JSON.stringify((await search(env, w)).map((h) => [h.conversation, h.project, h.snippet]).sort())));
    const before1 = await results();
    const run = await cli(['reindex'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(await results(), before1);
  });
});

describe('OpenCode: a later observation (opencode-revision-1.sql)', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let first: Map<string, string>;

  before(async () => {
    ({ home } = fixtureHome());
    env = envFor(home);
    await ingest(env);
    first = recordDigests(home);
    // Another process (as OpenCode would be) applies the revision.
    const script = `const D = require(${JSON.stringify(sqliteModule)}); const fs = require('fs');
      const db = new D(process.argv[1]); db.pragma('journal_mode = WAL'); db.exec(fs.readFileSync(process.argv[2], 'utf8')); db.close();`;
    execFileSync(process.execPath, ['-e', script, join(home, OPENCODE_DIR, 'opencode.db'), join(home, 'fixture-sql', 'opencode-revision-1.sql')]);
    await ingest(env);
  });

  it('keeps every record of the first observation byte-identical and grows the record count', () => {
    const now = recordDigests(home);
    for (const [key, digest] of first) assert.equal(now.get(key), digest, key);
    assert.ok(now.size > first.size);
  });

  it('makes the new revision and the new message searchable', async () => {
    for (const word of ['revisionsaffron', 'revisionquail']) {
      const hits = await search(env, word, '--agent', 'opencode');
      assert.deepEqual(hits.map((h) => h.conversation), ['opencode:ses_313ff387fffe1jbvy232toq8go'], word);
    }
    // Both revisions of the revised part are retained and searchable.
    const revised = await search(env, 'cactusomega');
    assert.equal(revised.length, 2);
  });

  it('retains the revised part, message and session as new revisions beside the old ones', () => {
    const sources = [...recordDigests(home).keys()].map((k) => k.split('|')[0] as string);
    const revisions = (fragment: string): number => new Set(sources.filter((s) => s.includes(fragment))).size;
    assert.equal(revisions(':part:prt_cec01c180001VBZRc6RqVY7Dyu:'), 2);
    assert.equal(revisions(':message:msg_cec01b5c8001Pl6xUbAWXcOs7s:'), 2);
    assert.equal(revisions('opencode:ses_313ff387fffe1jbvy232toq8go:session:'), 2);
  });
});

describe('OpenCode: rows met again with their records retained (their cursors lost)', () => {
  // Each row is a source of its own, and a page of listed rows asks once which of them have records
  // (src/sources/opencode/copy.ts). Rows met again with records are recognised slice by slice; a row whose
  // bytes changed under the same key (same id and time_updated) goes to the next generation.
  const PART = 'prt_cec01c180001VBZRc6RqVY7Dyu';
  let home: string;
  let env: NodeJS.ProcessEnv;
  let first: Map<string, string>;
  let changed: Buffer;

  before(async () => {
    ({ home } = fixtureHome());
    env = envFor(home);
    await ingest(env);
    first = recordDigests(home);
    const historyDb = join(home, '.agent-bridge', 'history.db');
    const lost = execFileSync(process.execPath, ['-e', `const D = require(${JSON.stringify(sqliteModule)}); const db = new D(process.argv[1]);
      console.log(db.prepare("DELETE FROM history_cursors WHERE source LIKE 'durable-message%' OR source LIKE 'durable-part%'").run().changes); db.close();`, historyDb]);
    assert.ok(Number(lost.toString()) > 0, 'row cursors were there to lose');
    // The same part, other bytes, the same time_updated (OpenCode rewrote it without a new time).
    const opencodeDb = join(home, OPENCODE_DIR, 'opencode.db');
    const rewrite = `const D = require(${JSON.stringify(sqliteModule)}); const db = new D(process.argv[1]); db.pragma('journal_mode = WAL');
      db.prepare("UPDATE part SET data = json_set(data, '$.text', 'samekeypelican ' || json_extract(data, '$.text')) WHERE id = ?").run(process.argv[2]);
      process.stdout.write(db.prepare('SELECT data FROM part WHERE id = ?').pluck().get(process.argv[2])); db.close();`;
    changed = execFileSync(process.execPath, ['-e', rewrite, opencodeDb, PART]);
    await ingest(env);
  });

  it('keeps every record, and adds none for a row whose bytes are retained already', () => {
    const now = recordDigests(home);
    for (const [key, digest] of first) assert.equal(now.get(key), digest, key);
    const added = [...now.keys()].filter((key) => !first.has(key));
    assert.ok(added.length > 0, 'the changed part was retained');
    assert.deepEqual(added.filter((key) => !key.includes(`:part:${PART}:`)), []);
  });

  it('retains the changed part in the next generation of the same key, whole', async () => {
    const rows = withStore(home, (db) =>
      db.prepare('SELECT source, generation, raw FROM conversation_records WHERE source LIKE ? ORDER BY generation, offset').all(`%:part:${PART}:%`),
    ) as Array<{ source: string; generation: number; raw: Buffer }>;
    const generation1 = rows.filter((r) => r.generation === 1);
    assert.equal(new Set(generation1.map((r) => r.source)).size, 1, 'one key has a generation 1');
    const key = generation1[0]?.source;
    assert.ok(rows.some((r) => r.source === key && r.generation === 0), 'beside its generation 0, kept');
    assert.ok(Buffer.concat(generation1.map((r) => r.raw)).equals(changed), 'its slices are the changed data');
    const hits = await search(env, 'samekeypelican');
    assert.equal(hits.length, 1);
  });
});
