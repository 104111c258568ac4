// Stores written since derived document text keep no copy of a Claude or
// Codex line's text: the document's body is empty and its span (bytes in the
// record, and how the text was cut) derives it again (schema.ts,
// DERIVED_TEXT_FTS_SQL). These tests hold that layout to the layout of
// earlier stores, every body stored:
// - the index holds exactly the derived text (FTS5 integrity check against
//   its external content, the view that derives it);
// - every planted query of a generated corpus (Claude, Codex and OpenCode)
//   answers exactly as the same store with every body stored: the same hits,
//   in the same order, with the same snippets, and the planted counts;
// - reindex rebuilds the same documents and spans;
// - a store written in the earlier layout stays in it when captured into again.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LEGACY_TABLES } from '../src/store/schema.ts';
import { openReader, openWriter, type Db } from '../src/store/open.ts';
import { countMatches, search } from '../src/store/search.ts';
import { ftsIntegrityAgainstContent } from './helpers/store.ts';
import { cli } from './helpers/home.ts';
import { type CorpusHome, corpusHome, searchRequest, searchTempDir } from './helpers/search-homes.ts';

/** The same store in the earlier layout: every table copied, each document with its text as its body. */
function storedBodiesTwin(source: string): string {
  const path = join(searchTempDir('twin'), 'history.db');
  const twin = openWriter(path, { storedBodies: true });
  try {
    twin.prepare('ATTACH DATABASE ? AS src').run(source);
    twin.transaction(() => {
      const tables = [...LEGACY_TABLES.filter((t) => t !== 'history_documents'), 'history_document_refs', 'history_migration', 'history_legacy_tail'];
      for (const table of tables) twin.exec(`INSERT INTO main.${table} (rowid, ${columns(twin, table)}) SELECT rowid, ${columns(twin, table)} FROM src.${table}`);
      // The insert triggers index every body (as earlier versions did) and fill the facets.
      const withText = names(twin, 'history_documents').map((c) => (c === 'body' ? 't.body' : `d."${c}"`));
      twin.exec(`INSERT INTO main.history_documents (rowid, ${columns(twin, 'history_documents')})
        SELECT d.rowid, ${withText.join(', ')} FROM src.history_documents d JOIN src.history_document_text t ON t.doc = d.rowid ORDER BY d.rowid`);
    })();
    twin.exec('DETACH DATABASE src');
  } finally {
    twin.close();
  }
  return path;
}

function names(db: Db, table: string): string[] {
  return (db.prepare(`PRAGMA main.table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
}

function columns(db: Db, table: string): string {
  return names(db, table).map((c) => `"${c}"`).join(', ');
}


function reader(path: string): Db {
  const db = openReader(path);
  assert.ok(db !== null);
  return db;
}

describe('derived document text', () => {
  let corpus: CorpusHome;
  let twinPath: string;

  before(async () => {
    corpus = await corpusHome({ bytes: '6MiB', seed: 5 });
    twinPath = storedBodiesTwin(corpus.historyDb);
  });

  test('span documents keep no body, and the index holds exactly the text derived from their bytes', () => {
    const db = reader(corpus.historyDb);
    try {
      const spans = db.prepare('SELECT count(*) FROM history_document_spans').pluck().get() as number;
      const documents = db.prepare('SELECT count(*) FROM history_documents').pluck().get() as number;
      assert.ok(spans > documents / 2, `${spans} of ${documents} documents are spans`);
      assert.equal(db.prepare("SELECT count(*) FROM history_documents d JOIN history_document_spans s ON s.doc = d.rowid WHERE d.body <> ''").pluck().get(), 0);
      assert.equal(db.prepare("SELECT count(*) FROM history_document_text WHERE body IS NULL OR body = ''").pluck().get(), 0, 'every document has its text');
    } finally {
      db.close();
    }
    ftsIntegrityAgainstContent(corpus.historyDb);
    ftsIntegrityAgainstContent(twinPath);
  });

  test('every planted query answers exactly as in the store with every body stored', () => {
    const derived = reader(corpus.historyDb);
    const stored = reader(twinPath);
    try {
      let compared = 0;
      for (const query of corpus.queries) {
        for (const limit of [10, 50]) {
          const request = searchRequest(query.text, query.filters, limit);
          const a = search(derived, request);
          assert.deepEqual(a, search(stored, request), `${query.id} (limit ${limit})`);
          compared += a.hits.length;
        }
        const count = countMatches(derived, searchRequest(query.text, query.filters));
        assert.deepEqual(count, countMatches(stored, searchRequest(query.text, query.filters)), query.id);
        assert.equal(count.count, query.expected.matches, `${query.id}: planted count`);
      }
      assert.ok(compared > 100, `${compared} hits compared`);
      // The literal engine reads the text too (without its time budget: the same documents are examined on both sides).
      const word = corpus.queries.find((q) => !q.text.includes(' ') && Object.keys(q.filters).length === 0);
      assert.ok(word !== undefined, 'a planted single word');
      const plain = searchRequest(word.text, {}, 20);
      const literal = { engine: 'plain', plainTimeMs: Number.POSITIVE_INFINITY } as const;
      const found = search(derived, plain, literal);
      assert.deepEqual(found, search(stored, plain, literal));
      assert.ok(found.hits.length > 0, `the literal engine finds ${word.text}`);
    } finally {
      derived.close();
      stored.close();
    }
  });

  test('reindex rebuilds the same documents, spans and index', async () => {
    const snapshot = (): unknown[] => {
      const db = reader(corpus.historyDb);
      try {
        return db
          .prepare(
            `SELECT d.id, d.kind, d.agent, d.at, d.body, t.body AS text, s.start, s.length, s.format, s.carry, s.trimmed, s.reach
             FROM history_documents d JOIN history_document_text t ON t.doc = d.rowid LEFT JOIN history_document_spans s ON s.doc = d.rowid ORDER BY d.id`,
          )
          .all();
      } finally {
        db.close();
      }
    };
    const before = snapshot();
    const run = await cli(['reindex'], corpus.env);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(snapshot(), before);
    ftsIntegrityAgainstContent(corpus.historyDb);
  });

  test('a store written in the earlier layout stays in it when captured into again', async () => {
    const home = searchTempDir('stored-bodies');
    const bridgeHome = join(home, 'bridge');
    const env = { ...corpus.env, AGENT_BRIDGE_HOME: bridgeHome };
    mkdirSync(bridgeHome, { recursive: true });
    openWriter(join(bridgeHome, 'history.db'), { storedBodies: true }).close();
    const run = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(run.code, 0, run.stderr);
    const db = reader(join(bridgeHome, 'history.db'));
    try {
      assert.equal(db.prepare("SELECT count(*) FROM sqlite_master WHERE name IN ('history_document_spans', 'history_document_text')").pluck().get(), 0);
      assert.equal(db.prepare("SELECT count(*) FROM history_documents WHERE body = ''").pluck().get(), 0);
      for (const query of corpus.queries.slice(0, 20)) assert.equal(countMatches(db, searchRequest(query.text, query.filters)).count, query.expected.matches, query.id);
    } finally {
      db.close();
    }
    ftsIntegrityAgainstContent(join(bridgeHome, 'history.db'));
  });
});
