// Streamed discovery: bounded steps (32 entries), no depth or count limit,
// symbolic links refused, every pass complete.

import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DiscoveryWalker } from '../src/sources/discovery.ts';
import type { FileSourceModule } from '../src/sources/source-module.ts';
import { tempDir } from './helpers/home.ts';

const module: FileSourceModule = { agent: 'other', roots: () => [], classify: async () => null };

describe('discovery', () => {
  it('finds every file of a deep and wide tree in bounded steps, pass after pass, refusing links', async () => {
    const root = tempDir('abh-disc-');
    let deep = root;
    const expected = new Set<string>();
    for (let depth = 0; depth < 40; depth++) {
      deep = join(deep, `d${depth}`);
      mkdirSync(deep);
      writeFileSync(join(deep, 'f.jsonl'), '');
      expected.add(join(deep, 'f.jsonl'));
    }
    const wide = join(root, 'wide');
    mkdirSync(wide);
    for (let i = 0; i < 1500; i++) {
      writeFileSync(join(wide, `w${i}.jsonl`), '');
      expected.add(join(wide, `w${i}.jsonl`));
    }
    const outside = tempDir('abh-outside-');
    writeFileSync(join(outside, 'secret.jsonl'), '');
    symlinkSync(outside, join(root, 'linked-dir'));
    symlinkSync(join(outside, 'secret.jsonl'), join(root, 'linked-file.jsonl'));

    const walker = new DiscoveryWalker([{ root, module }], 32);
    for (let pass = 1; pass <= 2; pass++) {
      const found = new Set<string>();
      let steps = 0;
      for (;;) {
        const step = await walker.step();
        steps++;
        assert.ok(step.files.length <= 32, 'a step reads at most 32 entries');
        for (const file of step.files) found.add(file.path);
        if (step.passComplete) break;
      }
      assert.deepEqual([...found].sort(), [...expected].sort(), `pass ${pass} found every file and nothing through a link`);
      assert.ok(steps >= (1500 + 80) / 32, 'the walk took many small steps');
      assert.equal(walker.passes, pass);
      assert.equal(walker.refusedLinks, 2);
    }
    await walker.close();
  });
});
