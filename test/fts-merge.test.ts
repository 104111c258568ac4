// history.db's FTS5 index merges in bounded steps between capture batches,
// not inside the batches' commits (src/store/fts-merge.ts): after a capture
// of many batches, automerge is off in the store, the index is left merged
// (a merge finds nothing to do), it passes FTS5's integrity check, and it
// finds every captured line.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { registerFunctions } from '../src/store/open.ts';
import { cli, envFor, tempDir } from './helpers/home.ts';
import { claudeSession } from './helpers/mirror.ts';

const SESSIONS = 10;
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
      assert.equal(db.prepare("SELECT v FROM history_fts_config WHERE k = 'automerge'").pluck().get(), 0, 'automerge is off');
      const segments = db.prepare('SELECT count(DISTINCT segid) FROM history_fts_idx').pluck().get() as number;
      // Fewer than 4 on each level once merged: a handful (levels grow by a factor of 4 or more).
      assert.ok(segments <= 12, `${segments} segments left`);
      const changes = db.prepare('SELECT total_changes()').pluck();
      const before = changes.get() as number;
      db.prepare("INSERT INTO history_fts (history_fts, rank) VALUES ('merge', 64)").run();
      assert.ok((changes.get() as number) - before < 2, 'the capture left nothing to merge');
      db.prepare("INSERT INTO history_fts (history_fts, rank) VALUES ('integrity-check', 1)").run();
      assert.equal(db.prepare('SELECT count(*) FROM history_fts WHERE history_fts MATCH ?').pluck().get('"mergeotter"'), SESSIONS * LINES);
    } finally {
      db.close();
    }
  });
});
