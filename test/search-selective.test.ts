// A selective filter whose matches are all older than many non-passing
// matches: the newest-first windows keep missing, so once the first window
// found less than a page, the remaining matches (few enough) are ranked in
// one statement. The search finds every passing match and is not truncated,
// even with a work budget too small for the windows to get there.

import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { resolvePaths } from '../src/config/paths.ts';
import { openReader, openWriter, type Db } from '../src/store/open.ts';
import { search } from '../src/store/search.ts';
import { cli, envFor, tempDir } from './helpers/home.ts';
import { codexLine, rolloutPath } from './helpers/rollouts.ts';

const OLD = '/home/dev/alpha-service';
const NEW = '/home/dev/beta-service';
const OLD_LINES = 5;
const NEW_LINES = 3000;
/** A first window of 256 matches and no time to start a second one. */
const TIGHT = { firstWindow: 256, maxWindow: 1024, timeMs: 0, hardTimeMs: 0, emptyTimeMs: 0 };

function transcript(home: string, cwd: string, lines: number): void {
  const session = randomUUID();
  const dir = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const body = Array.from({ length: lines }, (_, i) =>
    JSON.stringify({ type: 'user', sessionId: session, cwd, uuid: randomUUID(), timestamp: new Date(Date.UTC(2026, 2, 1, 10, 0, i)).toISOString(), message: { role: 'user', content: `zebracrossing note ${i} from ${cwd}` } }),
  );
  writeFileSync(join(dir, `${session}.jsonl`), `${body.join('\n')}\n`);
}

/**
 * A home whose passing matches (written by `writeOld`) are captured first, so
 * they have the lowest rowids, and NEW_LINES newer matches in project NEW
 * after them.
 */
async function oldThenNew(prefix: string, writeOld: (home: string) => void): Promise<{ home: string; db: Db }> {
  const home = tempDir(prefix);
  const env = envFor(home);
  writeOld(home);
  assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
  transcript(home, NEW, NEW_LINES);
  assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
  const db = openReader(resolvePaths(env).historyDb);
  assert.ok(db !== null);
  return { home, db };
}

describe('selective filters under a tight work budget', () => {
  let db: Db;

  before(async () => {
    db = (await oldThenNew('abh-selective-', (home) => transcript(home, OLD, OLD_LINES))).db;
  });

  test('the windows alone stop short (the scenario is real)', () => {
    const result = search(db, { query: 'zebracrossing', filters: { project: OLD }, limit: 10 }, { fts: { ...TIGHT, rankRestMax: 0 } });
    assert.equal(result.truncated, true);
    assert.ok(result.hits.length < OLD_LINES, `${result.hits.length} hits`);
  });

  test('ranking the rest finds every passing match, exactly', () => {
    const result = search(db, { query: 'zebracrossing', filters: { project: OLD }, limit: 10 }, { fts: TIGHT });
    assert.equal(result.truncated, false);
    assert.equal(result.hits.length, OLD_LINES);
    assert.ok(result.hits.every((h) => h.project === OLD));
  });

  test('unfiltered, the same budget still answers from the newest matches and says so', () => {
    const result = search(db, { query: 'zebracrossing', filters: {}, limit: 10 }, { fts: TIGHT });
    assert.equal(result.hits.length, 10);
    assert.equal(result.truncated, true);
  });
});

// An agent filter has an index of its own (history_document_facets by agent
// and rowid): each window starts at the newest document of that agent, so
// the newer matches of other agents are skipped, not examined, however many
// there are; no remaining-matches scan is needed.
describe('an agent filter skips the other agents stretches of the index', () => {
  let home: string;
  let db: Db;

  before(async () => {
    ({ home, db } = await oldThenNew('abh-selective-agent-', (dir) => {
      const rollout = rolloutPath(dir);
      writeFileSync(rollout.path, Array.from({ length: OLD_LINES }, (_, i) => codexLine(`zebracrossing codex note ${i}`, i)).join(''));
    }));
  });

  test('every passing match is found under a budget of one window, and the page is not truncated', () => {
    const result = search(db, { query: 'zebracrossing', filters: { agent: 'codex' }, limit: 10 }, { fts: { ...TIGHT, rankRestMax: 0 } });
    assert.equal(result.truncated, false);
    assert.equal(result.hits.length, OLD_LINES);
    assert.ok(result.hits.every((h) => h.agent === 'codex'));
    const claude = search(db, { query: 'zebracrossing', filters: { agent: 'claude' }, limit: 10 }, { fts: { ...TIGHT, rankRestMax: 0 } });
    assert.equal(claude.hits.length, 10);
    assert.ok(claude.hits.every((h) => h.agent === 'claude'));
    const none = search(db, { query: 'zebracrossing', filters: { agent: 'opencode' }, limit: 10 }, { fts: { ...TIGHT, rankRestMax: 0 } });
    assert.deepEqual([none.hits.length, none.truncated], [0, false], 'no OpenCode document: every match was ruled out, none left unexamined');
  });

  test('without the index (a store from before it) the same budget stops short, and the writer adds the index', () => {
    const path = join(home, 'copy.db');
    const source = new Database(resolvePaths(envFor(home)).historyDb, { readonly: true });
    source.prepare('VACUUM INTO ?').run(path);
    source.close();
    const copy = new Database(path);
    copy.exec('DROP INDEX idx_history_document_facets_agent');
    copy.close();
    const reader = openReader(path) as Db;
    try {
      const result = search(reader, { query: 'zebracrossing', filters: { agent: 'codex' }, limit: 10 }, { fts: { ...TIGHT, rankRestMax: 0 } });
      assert.equal(result.truncated, true);
      assert.ok(result.hits.length < OLD_LINES, `${result.hits.length} hits`);
    } finally {
      reader.close();
    }
    openWriter(path).close();
    const upgraded = openReader(path) as Db;
    try {
      assert.equal(search(upgraded, { query: 'zebracrossing', filters: { agent: 'codex' }, limit: 10 }, { fts: { ...TIGHT, rankRestMax: 0 } }).hits.length, OLD_LINES);
    } finally {
      upgraded.close();
    }
  });
});
