// The writer's store counts (what status and health show) are cached between
// changes, and records and bytes come from the per-conversation stats table,
// not from a scan of every record: an idle service asks for them every few
// seconds. These tests prove the counts are those a full scan finds, and that
// the cache never shows stale totals: after a commit of this connection,
// after another process's commit, and that bookkeeping which changes no
// counted table does not force a recount.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { StoreCounts } from '../protocols/history.ts';
import { openWriter } from '../src/store/open.ts';
import { loadScrubProgress } from '../src/store/scrub-store.ts';
import { HistoryWriter } from '../src/store/writer.ts';
import { cli, envFor, tempDir } from './helpers/home.ts';
import { claudeLine, claudePath } from './helpers/rollouts.ts';
import { withStore, type Store } from './helpers/store.ts';

/** Every counted table scanned whole: what the counts must equal. */
function scannedCounts(db: Store): StoreCounts {
  const one = (sql: string): number => db.prepare(sql).pluck().get() as number;
  return {
    sources: one('SELECT count(*) FROM conversation_sources'),
    conversations: one('SELECT count(*) FROM conversations'),
    records: one('SELECT count(*) FROM conversation_records'),
    documents: one('SELECT count(*) FROM history_documents'),
    rawBytes: one('SELECT coalesce(sum(length(raw)), 0) FROM conversation_records'),
  };
}

function writeSession(home: string, lines: number): void {
  const session = randomUUID();
  writeFileSync(claudePath(home, session), Array.from({ length: lines }, (_, i) => claudeLine(session, `counted line ${i}`)).join(''));
}

async function ingest(env: NodeJS.ProcessEnv): Promise<void> {
  const run = await cli(['ingest', '--once', '--pace', 'max'], env);
  assert.equal(run.code, 0, run.stderr);
}

describe('store counts', () => {
  it('follow commits of the writer and of other processes, and are not taken again for scrub bookkeeping', async () => {
    const home = tempDir();
    const env = envFor(home);
    writeSession(home, 3);
    await ingest(env);
    const db = openWriter(join(home, '.agent-bridge', 'history.db'));
    try {
      const writer = new HistoryWriter(db);
      const first = writer.counts();
      assert.deepEqual(first, withStore(home, scannedCounts));
      assert.ok(first.rawBytes > 0 && first.documents >= 3, 'the first session is counted');
      assert.equal(writer.counts(), first, 'nothing changed: the same counts, not counted again');

      // Another process commits: data_version moves.
      writeSession(home, 5);
      await ingest(env);
      const afterOther = writer.counts();
      assert.notEqual(afterOther, first);
      assert.equal(afterOther.sources, first.sources + 1, 'the second session is counted');
      assert.ok(afterOther.rawBytes > first.rawBytes);
      assert.deepEqual(afterOther, withStore(home, scannedCounts));

      // Scrub progress is saved often while idle and moves no count.
      const progress = loadScrubProgress(db);
      writer.saveScrub({ ...progress, verifiedBytes: progress.verifiedBytes + 1 });
      assert.equal(writer.counts(), afterOther, 'a scrub save is not a reason to count again');

      // This connection commits: total_changes() moves.
      const [source] = writer.loadSources();
      assert.ok(source !== undefined);
      writer.register([{ id: `${source.id}.copy`, path: `${source.path}.copy`, format: 'claude', ownAgentId: null, conversation: { id: source.conversation, agent: 'claude', session: source.session ?? 's', parent: null, kind: 'transcript' } }]);
      const afterOwn = writer.counts();
      assert.equal(afterOwn.sources, afterOther.sources + 1);
      assert.deepEqual(afterOwn, withStore(home, scannedCounts));
    } finally {
      db.close();
    }
  });
});
