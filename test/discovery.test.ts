// Streamed discovery: bounded steps (32 entries), no depth or count limit,
// symbolic links refused, every pass complete. A walker that keeps listings
// (serve) replays folders whose stamp did not change and must find exactly
// what a fresh walk finds.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DiscoveryWalker } from '../src/sources/discovery.ts';
import type { FileSourceModule } from '../src/sources/source-module.ts';
import { prng, tempDir } from './helpers/home.ts';

function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

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

/** Every file one whole pass finds, with the pass's link and skip counts. */
async function walkPass(walker: DiscoveryWalker, reuse: boolean): Promise<{ files: string[]; links: number; skipped: number }> {
  const files: string[] = [];
  for (;;) {
    const step = await walker.step(reuse);
    assert.ok(step.files.length <= 32, 'a replayed step hands out at most 32 entries too');
    files.push(...step.files.map((f) => f.path));
    if (step.passComplete) return { files: files.sort(), links: walker.refusedLinks, skipped: walker.skippedCount };
  }
}

/** Sets a folder's mtime an hour back, as a folder untouched for a while has. */
function age(dir: string): void {
  const past = new Date(Date.now() - 3_600_000);
  utimesSync(dir, past, past);
}

describe('discovery with kept listings', () => {
  it('replays unchanged folders and reads changed ones, finding what a fresh walk finds', async () => {
    const root = tempDir('abh-keep-');
    const dirs = [root];
    for (let i = 0; i < 6; i++) {
      const dir = join(dirs[Math.floor(i / 2)] as string, `d${i}`);
      mkdirSync(dir);
      dirs.push(dir);
    }
    for (const [i, dir] of dirs.entries()) for (let f = 0; f < 40; f++) writeFileSync(join(dir, `s${i}-${f}.jsonl`), '');
    symlinkSync(tempDir('abh-keep-out-'), join(dirs[2] as string, 'link'));
    mkfifo(join(dirs[3] as string, 'pipe.jsonl'));
    for (const dir of dirs) age(dir);

    const kept = new DiscoveryWalker([{ root, module }], 32, { keepListings: true });
    const fresh = (): Promise<{ files: string[]; links: number; skipped: number }> => walkPass(new DiscoveryWalker([{ root, module }], 32), false);
    const first = await walkPass(kept, true); // nothing kept yet: everything is read
    assert.deepEqual(first, await fresh());
    assert.deepEqual([kept.readDirs, kept.replayedDirs], [dirs.length, 0]);
    assert.deepEqual([first.links, first.skipped], [1, 1]);

    const second = await walkPass(kept, true);
    assert.deepEqual(second, first, 'a replayed pass finds the same files, links and skipped entries');
    assert.deepEqual([kept.readDirs, kept.replayedDirs], [dirs.length, dirs.length], 'every unchanged folder is replayed, none read');
    assert.deepEqual(await walkPass(kept, false), first, 'without reuse it reads');
    assert.equal(kept.readDirs, 2 * dirs.length);

    // A file added deep down: that folder is read (its stamp moved), the others replayed.
    const added = join(dirs[5] as string, 'new.jsonl');
    writeFileSync(added, '');
    const readBefore = kept.readDirs;
    const third = await walkPass(kept, true);
    assert.ok(third.files.includes(added));
    assert.deepEqual(third, await fresh());
    assert.equal(kept.readDirs - readBefore, 1);
    // Just changed: not kept (a coarse clock could hide a change in the same tick), so read again.
    await walkPass(kept, true);
    assert.equal(kept.readDirs - readBefore, 2);
    age(dirs[5] as string);
    await walkPass(kept, true);
    await walkPass(kept, true);
    assert.equal(kept.readDirs - readBefore, 3, 'once old enough it is kept and replayed');
  });

  it('matches a fresh walk through random adds, removals, renames, new folders, links and aged folders', async () => {
    let replayed = 0;
    for (let seed = 1; seed <= 6; seed++) {
      const random = prng(seed);
      const root = tempDir('abh-keep-rand-');
      const dirs = [root];
      const files: string[] = [];
      const kept = new DiscoveryWalker([{ root, module }], 32, { keepListings: true });
      for (let round = 0; round < 25; round++) {
        const kind = random();
        // Changes in half the rounds; in a quarter every folder ages (kept at the next pass); in the rest nothing changes.
        for (let op = 0; op < (kind < 0.5 ? 4 : 0); op++) {
          const roll = random();
          const dir = dirs[Math.floor(random() * dirs.length)] as string;
          if (roll < 0.35 || files.length === 0) {
            const file = join(dir, `f${round}-${op}.jsonl`);
            writeFileSync(file, '');
            files.push(file);
          } else if (roll < 0.5) {
            const [gone] = files.splice(Math.floor(random() * files.length), 1);
            rmSync(gone as string);
          } else if (roll < 0.65) {
            const index = Math.floor(random() * files.length);
            const moved = join(dir, `m${round}-${op}.jsonl`);
            renameSync(files[index] as string, moved);
            files[index] = moved;
          } else if (roll < 0.8 && dirs.length < 12) {
            const made = join(dir, `d${round}-${op}`);
            mkdirSync(made);
            dirs.push(made);
          } else if (roll < 0.85) {
            symlinkSync(root, join(dir, `l${round}-${op}`));
          } else {
            age(dir);
          }
        }
        if (kind >= 0.5 && kind < 0.75) for (const dir of dirs) age(dir);
        const before = kept.replayedDirs;
        const walked = await walkPass(kept, true);
        replayed += kept.replayedDirs - before;
        const expected = await walkPass(new DiscoveryWalker([{ root, module }], 32), false);
        assert.deepEqual(walked, expected, `seed ${seed} round ${round}`);
        assert.deepEqual(walked.files, [...files].sort(), `seed ${seed} round ${round}: the files on disk`);
      }
    }
    // The sequences do replay folders (a run that never did would test nothing new).
    assert.ok(replayed > 60, `folders replayed: ${replayed}`);
  });
});
