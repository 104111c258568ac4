// The mirror's plain functions on real files and real Git: replica names,
// which home writes into projects, plugin caches, and every way Git
// exclusion can fail to be ensured (git missing, a lock, a .gitignore rule
// that re-includes the folder), each with its reason and nothing written.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { resolvePaths } from '../src/config/paths.ts';
import { TimeShare } from '../src/ingest/time-share.ts';
import { EXCLUDE_LINE, ensureExcluded } from '../src/mirror/git-exclude.ts';
import { isInfrastructure, pluginCacheRoots } from '../src/mirror/infrastructure.ts';
import { isPhysicalDefaultHome, placementOf, replicaLocation, replicaName } from '../src/mirror/location.ts';
import { envFor, tempDir } from './helpers/home.ts';
import { git, repository } from './helpers/mirror.ts';

describe('replica names and homes', () => {
  it('names a replica by the first 16 hex digits of the project path’s SHA-256', () => {
    const project = '/home/me/src/app';
    assert.equal(replicaName(project), `conversations-${createHash('sha256').update(project).digest('hex').slice(0, 16)}.db`);
    assert.notEqual(replicaName('/home/me/src/app2'), replicaName(project));
  });

  it('treats the default home as physical: a link or AGENT_BRIDGE_HOME naming it writes into projects, any other home into <home>/project-mirrors', () => {
    const home = tempDir();
    mkdirSync(join(home, '.agent-bridge'));
    symlinkSync(join(home, '.agent-bridge'), join(home, 'alias'));
    assert.equal(isPhysicalDefaultHome(resolvePaths(envFor(home))), true);
    assert.equal(isPhysicalDefaultHome(resolvePaths(envFor(home, { AGENT_BRIDGE_HOME: join(home, 'alias') }))), true);
    const custom = resolvePaths(envFor(home, { AGENT_BRIDGE_HOME: join(home, 'custom') }));
    assert.equal(isPhysicalDefaultHome(custom), false);
    assert.deepEqual(replicaLocation(placementOf(custom), '/x/app'), {
      base: join(home, 'custom'),
      folder: join(home, 'custom', 'project-mirrors'),
      replica: join(home, 'custom', 'project-mirrors', replicaName('/x/app')),
    });
    assert.equal(replicaLocation(placementOf(resolvePaths(envFor(home))), '/x/app').replica, join('/x/app', '.agent-bridge', replicaName('/x/app')));
  });

  it('recognises plugin installation caches of Claude Code, Codex and OpenCode', () => {
    const home = tempDir();
    const roots = pluginCacheRoots(resolvePaths(envFor(home)), envFor(home));
    for (const inside of [
      join(home, '.claude', 'plugins', 'cache', 'market', 'tool', '1.0.0'),
      join(home, '.claude', 'plugins', 'marketplaces', 'market'),
      join(home, '.codex', 'plugins', 'cache', 'curated', 'skill', 'abc'),
      join(home, '.cache', 'opencode', 'node_modules', 'plugin'),
    ]) {
      assert.equal(isInfrastructure(inside, roots), true, inside);
    }
    for (const outside of [join(home, 'src', 'app'), join(home, '.claude-plugins'), join(home, '.codex')]) assert.equal(isInfrastructure(outside, roots), false, outside);
    const xdg = pluginCacheRoots(resolvePaths(envFor(home)), { ...envFor(home), XDG_CACHE_HOME: join(home, 'xdg') });
    assert.equal(isInfrastructure(join(home, 'xdg', 'opencode', 'x'), xdg), true);
  });
});

describe('mirror steps yield to capture', () => {
  it('keeps the mirror’s share of the loop’s wall time near its bound while capture is busy, without starving it', () => {
    let clock = 0;
    const share = new TimeShare(0.15, () => clock);
    let mirror = 0;
    let steps = 0;
    for (let turn = 0; turn < 2000; turn++) {
      clock += 20; // a capture batch
      if (share.allowed()) {
        clock += 12; // a mirror step
        share.spend(12);
        mirror += 12;
        steps++;
      }
    }
    const fraction = mirror / clock;
    assert.ok(fraction <= 0.16 && fraction >= 0.12, `mirror share ${fraction.toFixed(3)}`);
    assert.ok(steps > 300, `the mirror still steps (${steps} of 2000 turns)`);
  });
});

describe('Git exclusion that cannot be ensured', () => {
  const env = envFor(tempDir());

  it('defers a Git project when git is missing, and needs nothing for a plain folder', async () => {
    const { root } = repository('nogit');
    const before = readFileSync(join(root, '.git', 'info', 'exclude'));
    const result = await ensureExcluded(root, { env, git: join(tempDir(), 'no-such-git') });
    assert.ok('reason' in result);
    assert.equal(result.state, 'deferred');
    assert.match(result.reason, /git is not installed/);
    assert.deepEqual(readFileSync(join(root, '.git', 'info', 'exclude')), before);
    const plain = tempDir('abh-plain-');
    assert.deepEqual(await ensureExcluded(plain, { env, git: join(tempDir(), 'no-such-git') }), { kind: 'none' });
    assert.deepEqual(await ensureExcluded(plain, { env }), { kind: 'none' });
  });

  it('defers while the exclude file is locked', async () => {
    const { root } = repository('locked');
    const exclude = join(root, '.git', 'info', 'exclude');
    writeFileSync(`${exclude}.lock`, '');
    const result = await ensureExcluded(root, { env });
    assert.ok('reason' in result && result.state === 'deferred' && /locked/.test(result.reason), JSON.stringify(result));
    assert.equal(readFileSync(exclude, 'utf8').includes(EXCLUDE_LINE), false);
  });

  it('defers when a .gitignore rule re-includes the folder, and never edits .gitignore', async () => {
    const { root } = repository('reinclude');
    writeFileSync(join(root, '.gitignore'), '!/.agent-bridge/\n');
    const result = await ensureExcluded(root, { env });
    assert.ok('reason' in result && result.state === 'deferred' && /does not ignore/.test(result.reason), JSON.stringify(result));
    assert.equal(readFileSync(join(root, '.gitignore'), 'utf8'), '!/.agent-bridge/\n');
    // The line was added (once); a second attempt adds no other.
    await ensureExcluded(root, { env });
    assert.equal(readFileSync(join(root, '.git', 'info', 'exclude'), 'utf8').split('\n').filter((l) => l === EXCLUDE_LINE).length, 1);
  });

  it('creates info/exclude when the repository has none, and a dry run writes nothing', async () => {
    const { root } = repository('noinfo');
    const { rmSync } = await import('node:fs');
    rmSync(join(root, '.git', 'info'), { recursive: true });
    assert.deepEqual(await ensureExcluded(root, { env, dryRun: true }), { kind: 'git', exclude: join(root, '.git', 'info', 'exclude'), appended: false });
    assert.equal(existsSync(join(root, '.git', 'info')), false, 'a dry run creates nothing');
    assert.deepEqual(await ensureExcluded(root, { env }), { kind: 'git', exclude: join(root, '.git', 'info', 'exclude'), appended: true });
    assert.equal(readFileSync(join(root, '.git', 'info', 'exclude'), 'utf8'), `${EXCLUDE_LINE}\n`);
    assert.equal(git(root, 'check-ignore', '.agent-bridge/').trim(), '.agent-bridge/');
  });
});
