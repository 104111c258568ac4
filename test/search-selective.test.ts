// A selective filter whose matches are all older than many non-passing
// matches: the newest-first windows keep missing, so once the first window
// found less than a page, the remaining matches (few enough) are ranked in
// one statement. The search finds every passing match and is not truncated,
// even with a work budget too small for the windows to get there.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { resolvePaths } from '../src/config/paths.ts';
import { openReader, type Db } from '../src/store/open.ts';
import { search } from '../src/store/search.ts';
import { cli, envFor, tempDir } from './helpers/home.ts';

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

describe('selective filters under a tight work budget', () => {
  let db: Db;

  before(async () => {
    const home = tempDir('abh-selective-');
    const env = envFor(home);
    // The passing matches are captured first, so they have the lowest rowids.
    transcript(home, OLD, OLD_LINES);
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    transcript(home, NEW, NEW_LINES);
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    const opened = openReader(resolvePaths(env).historyDb);
    assert.ok(opened !== null);
    db = opened;
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
