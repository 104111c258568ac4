// Project folders and Git (specification, "Project folder and settings",
// "Custom bridge homes"), with real Git repositories and the real CLI:
//   - a linked worktree and a subfolder session share the main checkout's
//     replica; the exclude line lands once in the common Git directory's
//     info/exclude; `git status` shows nothing new; .gitignore is untouched;
//   - a folder that existed before `git init` gets its exclude line later;
//   - a custom AGENT_BRIDGE_HOME writes only under <home>/project-mirrors/;
//   - links are refused (folder, replica, its -wal, the exclude file) and
//     nothing is written through them;
//   - a read-only exclude file defers the project with the reason, and the
//     running service resumes on its own once it is writable.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { MirrorStatus, ProjectMirrorStatus } from '../protocols/mirror.ts';
import type { OnceSummary } from '../protocols/service.ts';
import { EXCLUDE_LINE } from '../src/mirror/git-exclude.ts';
import { HOME_MIRRORS, replicaName } from '../src/mirror/location.ts';
import { cli, cliJson, envFor, spawnCli, tempDir } from './helpers/home.ts';
import { claudeSession, ftsCounts, git, projectReplica, replicaRows, repository } from './helpers/mirror.ts';
import { waitFor } from './helpers/wait.ts';

const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

async function once(env: NodeJS.ProcessEnv): Promise<MirrorStatus> {
  const summary = await cliJson<OnceSummary>(['ingest', '--once', '--pace', 'max', '--json'], env);
  return summary.status.mirror;
}

function project(status: MirrorStatus, root: string): ProjectMirrorStatus {
  const found = status.projects.find((p) => p.project === root);
  assert.ok(found !== undefined, `${root} is listed (${status.projects.map((p) => p.project).join(', ')})`);
  return found;
}

function excludeLines(gitDir: string): string[] {
  return readFileSync(join(gitDir, 'info', 'exclude'), 'utf8').split('\n').filter((line) => line.trim() === EXCLUDE_LINE);
}

describe('project folders in Git repositories', () => {
  it('gives a linked worktree and a subfolder session the main checkout one replica, excluded once in the common Git dir', async () => {
    const { root, worktree } = repository('app', { worktree: true });
    writeFileSync(join(root, '.gitignore'), 'node_modules/\n');
    git(root, 'add', '.gitignore');
    git(root, 'commit', '-qm', 'ignore');
    const gitignore = readFileSync(join(root, '.gitignore'));
    const plain = join(tempDir('abh-plain-'), 'notes');
    mkdirSync(plain);
    const home = tempDir();
    claudeSession(home, { session: id(1), cwd: join(worktree as string, 'pkg'), lines: 30, word: 'worktreeheron' });
    claudeSession(home, { session: id(2), cwd: join(root, 'src', 'deep'), lines: 30, word: 'subfolderheron' });
    claudeSession(home, { session: id(3), cwd: plain, lines: 10, word: 'plainheron' });
    const env = envFor(home);

    const status = await once(env);
    assert.equal(status.placement, 'project');
    assert.equal(project(status, root).state, 'synced');
    assert.equal(project(status, root).replica, projectReplica(root));
    assert.equal(project(status, plain).state, 'synced', 'a non-Git project gets its folder without any exclude step');

    const rows = replicaRows(projectReplica(root));
    assert.deepEqual(
      (rows.conversations as Array<{ id: string; project: string }>).map((c) => [c.id, c.project]),
      [
        [`claude:${id(1)}`, root],
        [`claude:${id(2)}`, root],
      ],
      'both sessions, in the main checkout project, and nothing else',
    );
    assert.deepEqual(ftsCounts(projectReplica(root), 'worktreeheron'), { fts: 30, bodies: 30 }, 'the replica has a working FTS5 index');
    assert.equal(existsSync(join(worktree as string, '.agent-bridge')), false, 'nothing in the linked worktree');
    assert.equal(existsSync(join(worktree as string, 'pkg', '.agent-bridge')), false);
    assert.equal(existsSync(join(root, 'src', 'deep', '.agent-bridge')), false, 'nothing in the subfolder');

    // The exclude file Git names for the main checkout is the common Git dir's, for the worktree too.
    assert.equal(git(worktree as string, 'rev-parse', '--path-format=absolute', '--git-path', 'info/exclude').trim(), join(root, '.git', 'info', 'exclude'));
    assert.deepEqual(excludeLines(join(root, '.git')), [EXCLUDE_LINE]);
    const worktreeGitDir = git(worktree as string, 'rev-parse', '--path-format=absolute', '--git-dir').trim();
    assert.equal(existsSync(join(worktreeGitDir, 'info', 'exclude')), false, "the worktree's own git dir gets no exclude file");
    assert.equal(git(root, 'status', '--porcelain'), '', 'git status shows nothing new in the main checkout');
    assert.equal(git(worktree as string, 'status', '--porcelain'), '', 'nor in the worktree');
    assert.equal(git(root, 'check-ignore', '.agent-bridge/').trim(), '.agent-bridge/');
    assert.deepEqual(readFileSync(join(root, '.gitignore')), gitignore, '.gitignore is byte-identical');
    assert.equal(existsSync(join(worktree as string, '.gitignore')), false, 'no .gitignore created in the worktree');
    assert.equal(existsSync(join(plain, '.gitignore')), false);
    assert.ok(existsSync(projectReplica(plain)));

    // Again, with more to copy: still one line.
    claudeSession(home, { session: id(2), cwd: join(root, 'src', 'deep'), lines: 5, word: 'subfolderheron' }, { append: true });
    assert.equal(project(await once(env), root).state, 'synced');
    assert.deepEqual(excludeLines(join(root, '.git')), [EXCLUDE_LINE]);
    assert.deepEqual(ftsCounts(projectReplica(root), 'subfolderheron'), { fts: 35, bodies: 35 });
  });

  it('adds the exclude line once when the folder existed before git init', async () => {
    const dir = join(tempDir('abh-late-git-'), 'later');
    mkdirSync(dir);
    const home = tempDir();
    claudeSession(home, { session: id(4), cwd: dir, lines: 5, word: 'lategitowl' });
    const env = envFor(home);
    assert.equal(project(await once(env), dir).state, 'synced');
    assert.ok(existsSync(projectReplica(dir)), 'a non-Git project gets its folder');
    assert.equal(existsSync(join(dir, '.git')), false);

    git(dir, 'init', '-q');
    claudeSession(home, { session: id(4), cwd: dir, lines: 2, word: 'lategitowl' }, { append: true });
    assert.equal(project(await once(env), dir).state, 'synced');
    assert.deepEqual(excludeLines(join(dir, '.git')), [EXCLUDE_LINE], 'exactly one line, added once');
    assert.equal(git(dir, 'check-ignore', '.agent-bridge/').trim(), '.agent-bridge/');
    assert.equal(git(dir, 'status', '--porcelain'), '', 'the existing folder is ignored');
    assert.equal(project(await once(env), dir).state, 'synced');
    assert.deepEqual(excludeLines(join(dir, '.git')), [EXCLUDE_LINE], 'a later sync adds no second line');
  });

  it('writes a custom home’s replicas only under <home>/project-mirrors/ and touches no repository', async () => {
    const { root, worktree } = repository('custom', { worktree: true });
    const exclude = readFileSync(join(root, '.git', 'info', 'exclude'));
    const home = tempDir();
    const bridgeHome = join(tempDir('abh-custom-'), 'bridge');
    claudeSession(home, { session: id(5), cwd: join(worktree as string, 'pkg'), lines: 12, word: 'customkestrel' });
    const env = envFor(home, { AGENT_BRIDGE_HOME: bridgeHome });

    const status = await once(env);
    assert.equal(status.placement, 'home');
    assert.equal(status.directory, join(bridgeHome, HOME_MIRRORS));
    const replica = join(bridgeHome, HOME_MIRRORS, replicaName(root));
    assert.equal(project(status, root).replica, replica, 'named by the main checkout Git canonicalised the worktree to');
    assert.equal(project(status, root).state, 'synced');
    // (Before any reader opens it: a read-only consumer leaves SQLite's -wal/-shm beside a WAL database.)
    assert.deepEqual(readdirSync(join(bridgeHome, HOME_MIRRORS)), [replicaName(root)], 'closed cleanly: no -wal/-shm left');
    assert.deepEqual(ftsCounts(replica, 'customkestrel'), { fts: 12, bodies: 12 });
    for (const dir of [root, worktree as string, join(worktree as string, 'pkg')]) assert.equal(existsSync(join(dir, '.agent-bridge')), false, `nothing in ${dir}`);
    assert.deepEqual(readFileSync(join(root, '.git', 'info', 'exclude')), exclude, 'the exclude file is byte-identical');
    assert.equal(git(root, 'status', '--porcelain'), '');
    assert.equal(git(worktree as string, 'status', '--porcelain'), '');
    assert.equal(existsSync(join(home, '.agent-bridge')), false, 'the default home is not written either');
  });

  it('refuses links on the way and writes nothing through them', async () => {
    const home = tempDir();
    const outside = tempDir('abh-outside-');
    const linkedFolder = repository('linked-folder').root;
    const linkedReplica = repository('linked-replica').root;
    const linkedWal = repository('linked-wal').root;
    const linkedExclude = repository('linked-exclude').root;

    mkdirSync(join(outside, 'folder-target'));
    symlinkSync(join(outside, 'folder-target'), join(linkedFolder, '.agent-bridge'));
    mkdirSync(join(linkedReplica, '.agent-bridge'));
    writeFileSync(join(outside, 'replica-target'), 'not yours\n');
    symlinkSync(join(outside, 'replica-target'), projectReplica(linkedReplica));
    mkdirSync(join(linkedWal, '.agent-bridge'));
    symlinkSync(join(outside, 'wal-target'), `${projectReplica(linkedWal)}-wal`);
    const excludeTarget = join(outside, 'exclude-target');
    writeFileSync(excludeTarget, '# shared exclude\n');
    const exclude = join(linkedExclude, '.git', 'info', 'exclude');
    const before = readFileSync(exclude);
    writeFileSync(excludeTarget, before);
    // Replace the exclude file with a link to a file outside the repository.
    const { unlinkSync } = await import('node:fs');
    unlinkSync(exclude);
    symlinkSync(excludeTarget, exclude);

    for (const [n, root] of [linkedFolder, linkedReplica, linkedWal, linkedExclude].entries()) {
      claudeSession(home, { session: id(10 + n), cwd: root, lines: 3, word: 'linkwren' });
    }
    const status = await once(envFor(home));
    const expect: Array<[string, string]> = [
      [linkedFolder, join(linkedFolder, '.agent-bridge')],
      [linkedReplica, projectReplica(linkedReplica)],
      [linkedWal, `${projectReplica(linkedWal)}-wal`],
      [linkedExclude, exclude],
    ];
    for (const [root, link] of expect) {
      const p = project(status, root);
      assert.equal(p.state, 'refused', `${root}: ${p.reason}`);
      assert.equal(p.path, link);
      assert.match(p.reason ?? '', /symbolic link/);
    }
    assert.deepEqual(readdirSync(join(outside, 'folder-target')), [], 'nothing written into the folder link’s target');
    assert.equal(readFileSync(join(outside, 'replica-target'), 'utf8'), 'not yours\n', 'the replica link’s target is unchanged');
    assert.equal(existsSync(join(outside, 'wal-target')), false, 'the -wal link’s target was not created');
    assert.deepEqual(readFileSync(excludeTarget), before, 'the exclude link’s target is unchanged');
    assert.equal(existsSync(join(linkedExclude, '.agent-bridge')), false, 'a project whose exclusion is refused gets no folder');
    assert.ok(lstatSync(exclude).isSymbolicLink());

    // The report names the same refusals without a running service.
    const offline = await cliJson<MirrorStatus & { live: boolean }>(['mirrors', '--json'], envFor(home));
    assert.equal(offline.live, false);
    for (const [root, link] of expect) assert.deepEqual([project(offline, root).state, project(offline, root).path], ['refused', link]);
  });

  it('defers a project whose exclude file is read-only, with the reason, and resumes on its own once it is writable', async () => {
    const { root } = repository('readonly');
    const exclude = join(root, '.git', 'info', 'exclude');
    chmodSync(exclude, 0o444);
    const home = tempDir();
    claudeSession(home, { session: id(20), cwd: root, lines: 8, word: 'deferredplover' });
    const env = envFor(home);
    const serve = spawnCli(['serve'], env);
    const exited = new Promise<void>((resolve) => serve.on('exit', () => resolve()));
    let stderr = '';
    serve.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let last: ProjectMirrorStatus | undefined;
    const until = (what: string, test: (p: ProjectMirrorStatus) => boolean): Promise<ProjectMirrorStatus> =>
      waitFor(
        () => `${what}: ${JSON.stringify(last)}; ${stderr}`,
        async () => {
          const report = await cliJson<MirrorStatus & { live: boolean }>(['mirrors', '--json'], env);
          last = report.live ? report.projects.find((x) => x.project === root) : undefined;
          return last !== undefined && test(last) ? last : null;
        },
        { ms: 60_000, everyMs: 300 },
      );
    try {
      const waiting = await until('a deferral', (p) => p.state === 'deferred');
      assert.equal(waiting.path, exclude);
      assert.match(waiting.reason ?? '', /read-only/);
      assert.equal(existsSync(join(root, '.agent-bridge')), false, 'nothing is written into the project while deferred');
      const human = await cli(['mirrors'], env);
      assert.match(human.stdout.toString(), /deferred\s+\S*readonly[\s\S]*read-only/, 'the human report shows the state and the reason');

      chmodSync(exclude, 0o644);
      const synced = await until('the resumed sync', (p) => p.state === 'synced');
      assert.equal(synced.records, 1);
      assert.deepEqual(ftsCounts(projectReplica(root), 'deferredplover'), { fts: 8, bodies: 8 });
      assert.deepEqual(excludeLines(join(root, '.git')), [EXCLUDE_LINE]);
      assert.equal(git(root, 'status', '--porcelain'), '');
    } finally {
      serve.kill('SIGTERM');
      await exited;
    }
  });
});
