// Project filters over real Git checkouts: transcripts captured from a main
// checkout and from a linked worktree share the main checkout's identity; a
// filter naming the worktree, a subfolder of either, or the main checkout
// finds all of them. A subfolder of a non-Git project finds that project.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { resolvePaths } from '../src/config/paths.ts';
import { HistoryReader } from '../src/read/history-reader.ts';
import { cli } from './helpers/home.ts';
import { homeEnv, searchTempDir } from './helpers/search-homes.ts';

function transcript(home: string, cwd: string, words: string): void {
  const session = randomUUID();
  const dir = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const line = { type: 'user', sessionId: session, cwd, uuid: randomUUID(), timestamp: '2026-03-01T10:00:00.000Z', message: { role: 'user', content: words } };
  writeFileSync(join(dir, `${session}.jsonl`), `${JSON.stringify(line)}\n`);
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], { cwd, stdio: 'ignore' });
}

describe('project filter over Git worktrees and subfolders', () => {
  let reader: HistoryReader;
  let env: NodeJS.ProcessEnv;
  let repo: string;
  let worktree: string;
  let plain: string;

  before(async () => {
    const root = realpathSync(searchTempDir('projects'));
    repo = join(root, 'repo');
    worktree = join(root, 'repo-wt');
    plain = join(root, 'notes');
    mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
    mkdirSync(join(plain, 'sub'), { recursive: true });
    writeFileSync(join(repo, 'src', 'deep', 'file.txt'), 'x\n');
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    git(repo, 'worktree', 'add', '-q', worktree);
    const home = join(root, 'home');
    transcript(home, repo, 'mainbadger lives in the main checkout');
    transcript(home, join(worktree, 'src'), 'worktreeheron lives in a linked worktree subfolder');
    transcript(home, plain, 'plainotter lives in a folder without git');
    env = homeEnv(home, join(home, '.agent-bridge'));
    const ingested = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(ingested.code, 0, ingested.stderr);
    reader = new HistoryReader(resolvePaths(env));
  });

  test('worktree records carry the main checkout project', async () => {
    const hits = (await reader.search({ query: 'worktreeheron' })).hits;
    assert.equal(hits.length, 1);
    assert.equal(hits[0]?.project, repo);
  });

  test('the main checkout, the worktree, and subfolders of either find both', async () => {
    for (const project of [repo, `${repo}/`, join(repo, 'src', 'deep'), worktree, join(worktree, 'src', 'deep')]) {
      for (const word of ['mainbadger', 'worktreeheron']) {
        const { hits } = await reader.search({ query: word, filters: { project } });
        assert.equal(hits.length, 1, `${word} in ${project}`);
      }
      assert.equal((await reader.search({ query: 'plainotter', filters: { project } })).hits.length, 0);
    }
  });

  test('CLI: --project . in a worktree subfolder finds the project', async () => {
    const out = await cli(['search', 'mainbadger', '--project', '.', '--json'], env, join(worktree, 'src', 'deep'));
    assert.equal(out.code, 0, out.stderr);
    assert.equal((JSON.parse(out.stdout.toString('utf8')) as { hits: unknown[] }).hits.length, 1);
  });

  test('a non-Git project: its subfolder finds it, a sibling does not', async () => {
    assert.equal((await reader.search({ query: 'plainotter', filters: { project: join(plain, 'sub') } })).hits.length, 1);
    assert.equal((await reader.search({ query: 'plainotter', filters: { project: `${plain}-other` } })).hits.length, 0);
    assert.equal((await reader.search({ query: 'plainotter', filters: { project: '/nowhere/at/all' } })).hits.length, 0);
  });
});
