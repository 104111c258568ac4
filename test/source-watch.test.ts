// The file watch (src/sources/watch.ts) watches the roots that exist and
// takes in a root that appears at a refresh (the end of a discovery pass).
// A missing root is not watched through its parent folder: that folder is
// the bridge home for bridge roots, where the status file is replaced
// every few seconds. Real chokidar on real folders.

import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SourceWatch } from '../src/sources/watch.ts';
import { tempDir } from './helpers/home.ts';
import { waitFor } from './helpers/wait.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Watch events take a moment to arrive: chokidar reports within a few seconds. */
const WATCH = { ms: 5000, everyMs: 25 };

describe('source watch', () => {
  it('watches existing roots, not a missing one, and takes in a root that appears at a refresh', async () => {
    const home = tempDir('ab-watch-');
    const present = join(home, '.claude', 'projects');
    const missing = join(home, '.agent-bridge', 'runs');
    mkdirSync(join(present, 'p'), { recursive: true });
    mkdirSync(join(home, '.agent-bridge'));
    const changed: string[] = [];
    const watch = new SourceWatch([present, missing], (path) => changed.push(path));
    watch.start();
    try {
      await waitFor('the watch gets ready', () => watch.state === 'ready', WATCH);
      assert.deepEqual(watch.watchedRoots, [present]);

      const session = join(present, 'p', 's1.jsonl');
      writeFileSync(session, '{"type":"user"}\n');
      await waitFor('a new file under an existing root is reported', () => changed.includes(session), WATCH);
      appendFileSync(session, '{"type":"assistant"}\n');
      await waitFor('an append is reported', () => changed.filter((p) => p === session).length >= 2, WATCH);

      // A change in the bridge home (the missing root's parent) is no change of a source.
      for (let i = 0; i < 5; i++) writeFileSync(join(home, '.agent-bridge', 'history.status.json'), `{"n":${i}}`);
      await sleep(300);
      assert.deepEqual(changed.filter((p) => !p.startsWith(present)), []);

      // Nothing changes until a refresh; after it, the new root is watched.
      watch.refresh();
      assert.deepEqual(watch.watchedRoots, [present]);
      mkdirSync(missing);
      watch.refresh();
      assert.deepEqual(watch.watchedRoots, [present, missing]);
      await sleep(300); // chokidar sets up the new root's watch asynchronously
      const run = join(missing, 'job.json');
      writeFileSync(run, '{}');
      await waitFor('a file under the root that appeared is reported', () => changed.includes(run), WATCH);
    } finally {
      await watch.close();
    }
    assert.equal(watch.state, 'off');
  });

  it('is ready at once when no root exists yet', async () => {
    const home = tempDir('ab-watch-');
    const watch = new SourceWatch([join(home, 'none')], () => undefined);
    watch.start();
    try {
      assert.equal(watch.state, 'ready');
      assert.deepEqual(watch.watchedRoots, []);
    } finally {
      await watch.close();
    }
  });
});
