// A source file's stat as the capture sees it: the poll's synchronous
// observation must be exactly the asynchronous one, for a regular file, a
// growing file, a symbolic link (refused, not followed), a folder and a
// FIFO named like a source (not regular), and a missing file (gone).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { observe, observeSync } from '../src/ingest/observe.ts';
import { identityOf } from '../src/sources/identity.ts';
import { tempDir } from './helpers/home.ts';

describe('observing a source file', () => {
  it('gives the same observation or problem on the calling thread as through the thread pool', async () => {
    const dir = tempDir('abh-observe-');
    const file = join(dir, 'a.jsonl');
    writeFileSync(file, '{"type":"user"}\n');
    symlinkSync(file, join(dir, 'link.jsonl'));
    mkdirSync(join(dir, 'folder.jsonl'));
    execFileSync('mkfifo', [join(dir, 'pipe.jsonl')]);

    const stat = lstatSync(file);
    const [seen, problem] = observeSync(file);
    assert.equal(problem, null);
    assert.deepEqual(seen, { identity: identityOf(stat), size: 16, mtimeMs: stat.mtimeMs });
    appendFileSync(file, '{"type":"assistant"}\n');
    assert.equal(observeSync(file)[0]?.size, 37, 'a grown file is seen at its new size');

    const expected: Record<string, string> = { 'link.jsonl': 'SOURCE_REFUSED', 'folder.jsonl': 'SOURCE_REFUSED', 'pipe.jsonl': 'SOURCE_REFUSED', 'missing.jsonl': 'SOURCE_GONE' };
    for (const name of ['a.jsonl', ...Object.keys(expected)]) {
      const path = join(dir, name);
      const sync = observeSync(path);
      assert.deepEqual(sync, await observe(path), name);
      if (name !== 'a.jsonl') {
        assert.equal(sync[0], null, `${name}: no observation`);
        assert.equal(sync[1]?.code, expected[name], `${name}: ${JSON.stringify(sync[1])}`);
      }
    }
  });
});
