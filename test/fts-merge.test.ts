// history.db's FTS5 index merges in bounded steps between capture batches,
// not inside the batches' commits (src/store/fts-merge.ts): after a capture
// of many batches, automerge is off in the store, the index is left merged
// (a merge finds nothing to do), it passes FTS5's integrity check, and it
// finds every captured line. While capture has a backlog, levels gather up
// to 16 segments before a merge; once it is idle, they are merged at FTS5's
// default of 4.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BACKLOG_SEGMENTS_PER_MERGE, CRISIS_SEGMENTS, SEGMENTS_PER_MERGE } from '../src/store/fts-merge.ts';
import { openWriter, registerFunctions, type Db } from '../src/store/open.ts';
import { HistoryWriter } from '../src/store/writer.ts';
import { claudeLineChunk, claudePlan } from './helpers/commit-chunks.ts';
import { cli, envFor, tempDir } from './helpers/home.ts';
import { claudeSession } from './helpers/mirror.ts';

const SESSIONS = 10;

function segmentCount(db: Db): number {
  return db.prepare('SELECT count(DISTINCT segid) FROM history_fts_idx').pluck().get() as number;
}

/** Whether one FTS5 merge at the index's own 'usermerge' merges anything (FTS5's documented test: two or more changes). */
function mergeFindsWork(db: Db): boolean {
  const changes = db.prepare('SELECT total_changes()').pluck();
  const before = changes.get() as number;
  db.prepare("INSERT INTO history_fts (history_fts, rank) VALUES ('merge', 64)").run();
  return (changes.get() as number) - before >= 2;
}

const LINES = 400;
const id = (n: number): string => `50000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('history.db FTS5 merging', () => {
  it('merges the index between batches: automerge off, nothing left to merge, every line found', async () => {
    const home = tempDir();
    // Sessions of about 1 MB: chunks of 64 KiB, so a capture of many batches, each adding a segment.
    for (let i = 0; i < SESSIONS; i++) claudeSession(home, { session: id(i), cwd: join(home, 'work', 'merged'), lines: LINES, word: 'mergeotter', fill: 2500 });
    const env = envFor(home, { AGENT_BRIDGE_HISTORY_MIRRORS: 'off' });
    const run = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(run.code, 0, run.stderr);
    const batches = Number(/in (\d+) batches/.exec(String(run.stdout))?.[1]);
    assert.ok(batches >= 30, `${batches} batches`);

    const db = new Database(join(home, '.agent-bridge', 'history.db'));
    // The index's content is a view over the records (history_span_text): the check reads it.
    registerFunctions(db);
    try {
      const option = (key: string): unknown => db.prepare('SELECT v FROM history_fts_config WHERE k = ?').pluck().get(key);
      assert.equal(option('automerge'), 0, 'automerge is off');
      assert.equal(option('usermerge'), SEGMENTS_PER_MERGE, 'the run ends merging at the idle fanout');
      assert.equal(option('crisismerge'), CRISIS_SEGMENTS, 'no crisis merge before the backlog fanout is reached');
      // Fewer than 4 on each level once merged: a handful (levels grow by a factor of 4 or more).
      assert.ok(segmentCount(db) <= 12, `${segmentCount(db)} segments left`);
      assert.equal(mergeFindsWork(db), false, 'the capture left nothing to merge');
      db.prepare("INSERT INTO history_fts (history_fts, rank) VALUES ('integrity-check', 1)").run();
      assert.equal(db.prepare('SELECT count(*) FROM history_fts WHERE history_fts MATCH ?').pluck().get('"mergeotter"'), SESSIONS * LINES);
    } finally {
      db.close();
    }
  });

  it('lets levels gather up to 16 segments while capture has a backlog, and merges them at 4 once it is idle', () => {
    const db = openWriter(join(tempDir(), 'history.db'));
    try {
      const writer = new HistoryWriter(db);
      const plan = claudePlan('60000000-0000-4000-8000-000000000001');
      writer.register([plan]);
      let offset = 0;
      /** One batch of one line: its documents are one segment of the index. */
      const commitLine = (n: number): void => {
        const chunk = claudeLineChunk(plan, offset, `tierword${n} backlogged line ${n}`);
        writer.commit([chunk]);
        offset += chunk.bytes.length;
      };
      const mergeAll = (backlog: boolean): void => {
        while (writer.mergeIndex(64, 1000, backlog));
      };

      const first = BACKLOG_SEGMENTS_PER_MERGE - 1;
      for (let n = 0; n < first; n++) {
        commitLine(n);
        mergeAll(true);
      }
      // A fanout of 4 would have merged level 0 at its fourth segment.
      assert.equal(segmentCount(db), first, 'a segment per batch, none merged below the backlog fanout');
      commitLine(first);
      mergeAll(true);
      assert.equal(segmentCount(db), 1, `the ${BACKLOG_SEGMENTS_PER_MERGE}th segment merges the level into one`);

      for (let n = first + 1; n < first + 1 + SEGMENTS_PER_MERGE + 1; n++) {
        commitLine(n);
        mergeAll(true);
      }
      const backlogged = segmentCount(db);
      assert.equal(backlogged, SEGMENTS_PER_MERGE + 2, 'still unmerged while the backlog lasts');
      // Idle: nothing new is written, and the idle fanout still finds the backlog's segments to merge.
      mergeAll(false);
      assert.ok(segmentCount(db) < backlogged && segmentCount(db) <= 2, `${segmentCount(db)} segments once idle`);
      assert.equal(mergeFindsWork(db), false, 'nothing left to merge at the idle fanout');
      db.prepare("INSERT INTO history_fts (history_fts, rank) VALUES ('integrity-check', 1)").run();
      for (let n = 0; n <= first + SEGMENTS_PER_MERGE + 1; n++) {
        assert.equal(db.prepare('SELECT count(*) FROM history_fts WHERE history_fts MATCH ?').pluck().get(`tierword${n}`), 1, `line ${n} is found`);
      }
    } finally {
      db.close();
    }
  });
});
