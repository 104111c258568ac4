// Project identity: the canonical Git project root (linked worktrees and
// subfolders share the main checkout's), the physical directory elsewhere,
// the recorded form for paths this machine does not have.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { canonicalProject, canonicalProjectSync } from '../src/project/canonical.ts';
import { cli, cliJson, envFor, tempDir } from './helpers/home.ts';

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'ignore' });
}

function repository(): { main: string; worktree: string } {
  const root = tempDir('abh-git-');
  const main = join(root, 'main');
  mkdirSync(join(main, 'src', 'deep'), { recursive: true });
  writeFileSync(join(main, 'src', 'deep', 'file.txt'), 'x');
  git(main, 'init', '-q');
  git(main, 'add', '.');
  git(main, 'commit', '-qm', 'init');
  const worktree = join(root, 'linked');
  git(main, 'worktree', 'add', '-q', worktree, '-b', 'feature');
  mkdirSync(join(worktree, 'pkg'), { recursive: true });
  return { main: realpathSync(main), worktree };
}

describe('project identity', () => {
  for (const [driver, canonical] of [
    ['async', canonicalProject],
    ['sync', (path: string) => Promise.resolve(canonicalProjectSync(path))],
  ] as const) {
    it(`maps subfolders and linked worktrees to the main checkout, submodules and other directories to themselves (${driver})`, async () => {
      const { main, worktree } = repository();
      assert.equal(await canonical(join(main, 'src', 'deep')), main);
      assert.equal(await canonical(join(worktree, 'pkg')), main);
      assert.equal(await canonical(worktree), main);

      // A submodule's ".git" file names a git dir without `commondir`: the submodule is its own project.
      const submodule = join(main, 'vendor', 'lib');
      mkdirSync(join(submodule, 'src'), { recursive: true });
      mkdirSync(join(main, '.git', 'modules', 'lib'), { recursive: true });
      writeFileSync(join(submodule, '.git'), 'gitdir: ../../.git/modules/lib\n');
      assert.equal(await canonical(join(submodule, 'src')), submodule);

      const plain = tempDir('abh-plain-');
      mkdirSync(join(plain, 'real', 'inner'), { recursive: true });
      symlinkSync(join(plain, 'real'), join(plain, 'alias'));
      assert.equal(await canonical(join(plain, 'alias', 'inner')), realpathSync(join(plain, 'real', 'inner')));

      assert.equal(await canonical('/no/such/project/on/this/machine'), '/no/such/project/on/this/machine');
      assert.equal(await canonical('C:\\Users\\someone\\game'), 'C:\\Users\\someone\\game');
    });
  }

  it('files a transcript recorded in a linked worktree under the main project, and finds it from there', async () => {
    const { main, worktree } = repository();
    const home = tempDir();
    const session = '7d3c9a52-0d8e-4d7b-9a0e-3f0f1b2c4d5e';
    const dir = join(home, '.claude', 'projects', 'linked-pkg');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${session}.jsonl`), `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'worktreeotter prompt' }, cwd: join(worktree, 'pkg'), sessionId: session })}\n`);
    const env = envFor(home);
    assert.equal((await cli(['ingest', '--once'], env)).code, 0);
    for (const project of [main, join(worktree, 'pkg'), join(main, 'src')]) {
      const result = await cliJson<{ hits: Array<{ conversation: string; project: string }> }>(['search', 'worktreeotter', '--project', project, '--json'], env);
      assert.deepEqual(result.hits.map((h) => [h.conversation, h.project]), [[`claude:${session}`, main]], `--project ${project}`);
    }
  });
});
