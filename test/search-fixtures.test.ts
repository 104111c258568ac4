// Every fixture keyword (make-fixtures manifest) is found exactly where the
// manifest says: one hit per line that contains it (the documents are per
// line, and the fragments of an oversized line are one hit), in the file's
// own conversation or its native child, with agent and project filters, on
// both engines (FTS5, and the literal engine of a store created without FTS5).
// OpenCode keywords are skipped: OpenCode capture is not part of this build.

import assert from 'node:assert/strict';
import { relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { SearchHit } from '../protocols/search.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { HistoryReader } from '../src/read/history-reader.ts';
import { openReader } from '../src/store/open.ts';
import { documentsWithText } from './helpers/document-text.ts';
import { type FixtureHome, type FixtureManifest, fixtureHome } from './helpers/search-homes.ts';

function collapsed(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const ORCHARD = '/home/fixture/work/orchard_app.v2';
const WINDOWS = 'C:\\Users\\fixture\\work\\game';

/** Conversations a line of `file` may belong to: the file's own, or (Claude inline sidechains) a native child of it. */
function conversationsOf(manifest: FixtureManifest, file: string): Set<string> {
  const out = new Set<string>();
  const codex = /rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(file);
  if (codex !== null) out.add(`codex:${codex[1]}`);
  for (const session of manifest.claude.sessions) {
    const main = `claude:${session.sessionId}`;
    if (file === session.file || file.includes(`/${session.sessionId}/tool-results/`)) {
      out.add(main);
      for (const child of session.children) if (child.file === undefined) out.add(`${main}:native:${child.agentId}`);
    }
    for (const child of session.children) if (child.file === file) out.add(`${main}:native:${child.agentId}`);
  }
  return out;
}

function projectOf(file: string): string {
  return file.includes('C--Users-fixture-work-game') ? WINDOWS : ORCHARD;
}

for (const engine of ['fts5', 'plain'] as const) {
  describe(`fixture keywords (${engine})`, () => {
    let fixture: FixtureHome;
    let reader: HistoryReader;
    let db: Database.Database;

    before(async () => {
      fixture = await fixtureHome({ fts: engine === 'fts5' });
      reader = new HistoryReader(resolvePaths(fixture.env));
      // Our reader connection: it has the function that derives a span document's text (history_document_text).
      db = openReader(resolvePaths(fixture.env).historyDb) as Database.Database;
    });
    after(() => {
      reader.close();
      db.close();
    });

    /** The fixture file (relative to the fake home) a hit's document came from. */
    function fileOf(hit: SearchHit): string {
      const record = Number(/^durable:(\d+):/.exec(hit.id)?.[1]);
      const row = db.prepare('SELECT source FROM conversation_records WHERE id = ?').get(record) as { source: string };
      return relative(fixture.home, row.source.replace(/:inline:.*$/, ''));
    }

    async function hitsFor(keyword: string, filters: Record<string, unknown>): Promise<SearchHit[]> {
      const result = await reader.search({ query: keyword, filters, limit: 50 });
      // Nothing found for a word of a script without spaces: the literal engine is asked too.
      const spacelessMiss = result.hits.length === 0 && /\p{Script=Han}|\p{Script=Katakana}/u.test(keyword);
      if (!spacelessMiss) assert.equal(result.engine, engine, `engine for ${keyword}`);
      assert.equal(result.truncated, false, `${keyword} is not truncated`);
      assert.equal(result.store, 'history');
      return result.hits;
    }

    /** The document's text: its body, or for a span document (stores with FTS5) the text derived from its bytes. */
    function bodyOf(hit: SearchHit): string {
      return (db.prepare(documentsWithText(db, 'd.id', 'WHERE d.id = ?')).get(hit.id) as { body: string }).body;
    }

    function perFile(hits: readonly SearchHit[]): Record<string, number> {
      const counts: Record<string, number> = {};
      for (const hit of hits) counts[fileOf(hit)] = (counts[fileOf(hit)] ?? 0) + 1;
      return counts;
    }

    test('manifest keywords: exact line counts per file, conversations, agent filter', async (t) => {
      const { manifest } = await fixtureHome({ fts: true });
      for (const [keyword, info] of Object.entries(manifest.keywords)) {
        if (info.agent === 'opencode') {
          t.diagnostic(`skipped ${keyword}: OpenCode capture is not part of this build`);
          continue;
        }
        if (info.files.length === 0) {
          t.diagnostic(`skipped ${keyword}: only in optional fixture files (--with-zst)`);
          continue;
        }
        const expected = Object.fromEntries(info.files.map((f) => [f.path, f.linesContaining]));
        const hits = await hitsFor(keyword, { agent: info.agent });
        assert.deepEqual(perFile(hits), expected, `lines containing ${keyword}`);
        for (const hit of hits) {
          assert.equal(hit.agent, info.agent);
          const allowed = conversationsOf(manifest, fileOf(hit));
          assert.ok(hit.conversation !== null && allowed.has(hit.conversation), `${keyword}: ${hit.conversation} is one of ${[...allowed].join(', ')}`);
          assert.equal(hit.project, projectOf(fileOf(hit)));
          assert.ok(hit.snippet.length > 0 && hit.snippet.length <= 320, `${keyword} snippet length ${hit.snippet.length}`);
          assert.doesNotMatch(hit.snippet, /\s{2}/, 'snippet whitespace is collapsed');
          assert.ok(collapsed(bodyOf(hit)).includes(hit.snippet.replace(/^…|…$/g, '')), `${keyword}: the snippet of ${hit.id} comes from its own document`);
          assert.ok(hit.link.startsWith('/api/conversations/'), hit.link);
        }
        const other = info.agent === 'claude' ? 'codex' : 'claude';
        assert.deepEqual(await hitsFor(keyword, { agent: other }), [], `${keyword} with agent ${other}`);
      }
    });

    test('project filter: the project, a subfolder of it, and a Windows drive path in another spelling', async () => {
      const { manifest } = await fixtureHome({ fts: true });
      const words = Object.entries(manifest.keywords).filter(([, info]) => info.agent !== 'opencode' && info.files.length > 0);
      for (const [keyword, info] of words) {
        for (const [project, spelled] of [
          [ORCHARD, ORCHARD],
          [ORCHARD, `${ORCHARD}/src/scheduler`],
          [WINDOWS, 'c:/users/fixture/work/game/'],
        ] as const) {
          const expected = Object.fromEntries(info.files.filter((f) => projectOf(f.path) === project).map((f) => [f.path, f.linesContaining]));
          const hits = await hitsFor(keyword, { project: spelled, agent: info.agent });
          assert.deepEqual(perFile(hits), expected, `${keyword} in ${spelled}`);
        }
      }
    });

    test('the tail keyword of a line over 200 KiB is one hit in its conversation', async () => {
      const { manifest } = await fixtureHome({ fts: true });
      for (const keyword of ['tailmarkeromega', 'needlehaystack', 'codexbigtail']) {
        const info = manifest.keywords[keyword];
        assert.ok(info !== undefined);
        const big = new Set(manifest.sources.filter((s) => (s.largeLines ?? []).length > 0).map((s) => s.path));
        assert.ok(info.files.every((f) => big.has(f.path)), `${keyword} lies in a file with a line over 200 KiB`);
        const hits = await hitsFor(keyword, {});
        assert.equal(hits.length, info.files.reduce((n, f) => n + f.linesContaining, 0));
      }
      const tail = await hitsFor('tailmarkeromega', {});
      const session = manifest.claude.sessions.find((s) => s.file === manifest.keywords.tailmarkeromega?.files[0]?.path);
      assert.equal(tail[0]?.conversation, `claude:${session?.sessionId}`);
      assert.match(tail[0]?.snippet ?? '', /tailmarkeromega/);
    });

    test('an inline sidechain keyword is found in the native child conversation', async () => {
      const { manifest } = await fixtureHome({ fts: true });
      const session = manifest.claude.sessions.find((s) => s.children.some((c) => c.file === undefined));
      assert.ok(session !== undefined);
      const child = `claude:${session.sessionId}:native:${session.children[0]?.agentId}`;
      const hits = await hitsFor('sidechainvelvet', {});
      assert.ok(hits.some((h) => h.conversation === child), `one of ${hits.map((h) => h.conversation).join(', ')} is ${child}`);
      const bySession = await hitsFor('sidechainvelvet', { session: session.sessionId });
      assert.equal(bySession.length, hits.length, 'a session filter includes its native children');
    });
  });
}
