// The agent, kind and time filters of FTS5 searches read
// history_document_facets, a small mirror of those history_documents columns
// kept by triggers. They must answer exactly what the documents answer: on a
// make-corpus home (Claude, Codex and OpenCode), every planted filter query
// counts its planted matches through the facets and through the documents
// (a copy of the store as a build before the facets wrote it), with the same
// hits, also with kind filters; and the writer gives a store from before the
// facets its facets, filled, when it next opens it.

import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openReader, openWriter, type Db } from '../src/store/open.ts';
import { countMatches, search } from '../src/store/search.ts';
import { layoutOf } from '../src/store/search/layout.ts';
import { cli, tempDir } from './helpers/home.ts';
import { type CorpusHome, corpusHome, homeEnv, type PlantedQuery, searchRequest as request } from './helpers/search-homes.ts';
import { facetsDrift } from './helpers/store.ts';


/** What a build before history_document_facets left: the table and its triggers absent. */
function withoutFacets(path: string): void {
  const db = new Database(path);
  db.exec('DROP TRIGGER history_facets_insert; DROP TRIGGER history_facets_update; DROP TRIGGER history_facets_delete; DROP TABLE history_document_facets;');
  db.close();
}

describe('search filters through history_document_facets', () => {
  const oldHome = join(tempDir('abh-facets-old-'), '.agent-bridge');
  let corpus: CorpusHome;
  let planted: PlantedQuery[];
  let kinds: string[];
  let facets: Db;
  let documents: Db;

  before(async () => {
    corpus = await corpusHome({ bytes: '8MiB', seed: 3 });
    planted = corpus.queries.filter((q) => q.kind === 'filter');
    mkdirSync(oldHome, { recursive: true });
    // A page-exact copy (VACUUM could renumber the documents' rowids).
    const source = new Database(corpus.historyDb, { readonly: true });
    await source.backup(join(oldHome, 'history.db'));
    source.close();
    withoutFacets(join(oldHome, 'history.db'));
    facets = openReader(corpus.historyDb) as Db;
    documents = openReader(join(oldHome, 'history.db')) as Db;
    kinds = facets.prepare('SELECT DISTINCT kind FROM history_documents ORDER BY kind').pluck().all() as string[];
  });

  after(() => {
    facets?.close();
    documents?.close();
  });

  test('the stores differ only in the facets (each path is really taken)', () => {
    assert.equal(layoutOf(facets).facets, true);
    assert.equal(layoutOf(documents).facets, false);
    assert.equal(facetsDrift(facets), 0, 'the facets mirror the documents after capture');
    assert.ok(planted.length >= 30, `${planted.length} planted filter queries`);
    assert.ok(planted.some((q) => q.filters.agent === 'opencode') && planted.some((q) => q.filters.since !== undefined) && planted.some((q) => q.filters.until !== undefined));
  });

  test('every planted filter query counts its planted matches through facets and through documents', () => {
    for (const q of planted) {
      const req = request(q.text, q.filters);
      const want = q.expected.matches;
      assert.equal(countMatches(facets, req).count, want, `${q.id} ${q.text} ${JSON.stringify(q.filters)} (facets)`);
      assert.equal(countMatches(documents, req).count, want, `${q.id} (documents)`);
    }
  });

  test('facets and documents give the same hits, in the same order, also with kind filters', () => {
    let nonEmpty = 0;
    let emptied = 0;
    for (const q of planted) {
      for (const filters of [q.filters, ...kinds.map((kind) => ({ ...q.filters, kind }))]) {
        const req = request(q.text, filters);
        const ids = (db: Db) => search(db, req).hits.map((h) => h.id);
        const got = ids(facets);
        assert.deepEqual(got, ids(documents), `${q.id} ${JSON.stringify(filters)}`);
        assert.equal(countMatches(facets, req).count, countMatches(documents, req).count, `${q.id} ${JSON.stringify(filters)} (count)`);
        if (got.length > 0) nonEmpty++;
        else if (q.expected.matches > 0) emptied++;
      }
    }
    assert.ok(nonEmpty > planted.length, `${nonEmpty} filtered searches with hits`);
    assert.ok(kinds.length < 2 || emptied > 0, 'some kind filter excludes every match');
  });

  test('a stale facets row where a document is inserted is replaced, not kept (INSERT OR IGNORE fires the trigger)', () => {
    const path = join(tempDir('abh-facets-stale-'), 'history.db');
    const db = openWriter(path);
    try {
      const next = (db.prepare('SELECT coalesce(max(rowid), 0) + 1 FROM history_documents').pluck().get() as number);
      db.prepare("INSERT INTO history_document_facets (doc, agent, kind, at) VALUES (?, 'codex', 'run', 1)").run(next);
      db.prepare("INSERT OR IGNORE INTO history_documents (rowid, id, kind, agent, at, body, folded, link) VALUES (?, 'stale-test', 'transcript', 'claude', 42, 'body', '', '')").run(next);
      assert.deepEqual(db.prepare('SELECT agent, kind, at FROM history_document_facets WHERE doc = ?').get(next), { agent: 'claude', kind: 'transcript', at: 42 });
      assert.equal(facetsDrift(db), 0);
    } finally {
      db.close();
    }
  });

  test('the writer gives a store from before the facets its facets, filled', async () => {
    const env = homeEnv(corpus.home, oldHome);
    const ingest = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(ingest.code, 0, ingest.stderr);
    const upgraded = openReader(join(oldHome, 'history.db')) as Db;
    try {
      assert.equal(layoutOf(upgraded).facets, true);
      const count = upgraded.prepare('SELECT count(*) FROM history_document_facets').pluck().get() as number;
      assert.equal(count, upgraded.prepare('SELECT count(*) FROM history_documents').pluck().get());
      assert.ok(count > 1000, `${count} documents`);
      assert.equal(facetsDrift(upgraded), 0);
      for (const q of planted) assert.equal(countMatches(upgraded, request(q.text, q.filters)).count, q.expected.matches, q.id);
    } finally {
      upgraded.close();
    }
  });
});
