// A project whose folder is not on this machine (a deleted checkout, a
// session from elsewhere) is deferred, and looked for again with a growing
// delay (5 s, 10 s, 20 s … up to 5 minutes) instead of every 5 s: an idle
// service with hundreds of such projects would otherwise stat each of them
// every few seconds. Once the folder is there, the replica is made at the
// next look; any other problem is still retried every 5 s.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LIMITS } from '../src/config/limits.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { placementOf, replicaLocation } from '../src/mirror/location.ts';
import { MirrorSync } from '../src/mirror/mirror-sync.ts';
import { cli, envFor, tempDir } from './helpers/home.ts';
import { claudeSession } from './helpers/mirror.ts';

describe('mirror of an absent project folder', () => {
  it('looks for the folder again after a doubling delay, up to the cap, and makes the replica once it is there', async () => {
    const home = tempDir();
    const project = join(tempDir('abh-absent-'), 'gone-checkout');
    claudeSession(home, { session: '50000000-0000-4000-8000-000000000001', cwd: project, lines: 4, word: 'absentwren' });
    const env = envFor(home); // the default bridge home: replicas live in the project folder
    const capture = await cli(['ingest', '--once', '--pace', 'max'], { ...env, AGENT_BRIDGE_HISTORY_MIRRORS: 'off' });
    assert.equal(capture.code, 0, capture.stderr);

    let now = 1_000_000;
    const limits = { ...LIMITS, mirrorRecheckMs: 5000, mirrorAbsentRecheckMaxMs: 40_000 };
    const paths = resolvePaths(env);
    const sync = new MirrorSync({ paths, env, limits, mode: 'serve', now: () => now });
    const state = (): { state: string; reason: string | null } => {
      const entry = sync.status().projects.find((p) => p.project === project);
      assert.ok(entry !== undefined, 'the project is listed');
      return { state: entry.state, reason: entry.reason };
    };
    /** Steps at `t` ms after the start until the mirror has nothing more to do. */
    const stepAt = async (t: number): Promise<void> => {
      now = 1_000_000 + t;
      for (let i = 0; i < 20 && (await sync.step()).more; i++);
    };

    await stepAt(0);
    assert.equal(state().state, 'deferred');
    assert.match(state().reason ?? '', /does not exist on this machine/);
    // Looks at 5, 15, 35 s after the start (5, 10, 20 s apart), then 40 s apart (the cap): the folder made just
    // after a look is seen at the next look, not before.
    const looks = [5_000, 15_000, 35_000, 75_000, 115_000];
    let last = 0;
    for (const look of looks) {
      mkdirSync(project, { recursive: true });
      await stepAt(look - 1);
      assert.equal(state().state, 'deferred', `not looked at ${look - 1} ms (last look at ${last})`);
      if (look !== looks.at(-1)) {
        // Gone again just before the look: the look finds it absent and the delay grows.
        rmSync(project, { recursive: true });
        await stepAt(look);
        assert.equal(state().state, 'deferred', `looked at ${look} ms`);
      } else {
        await stepAt(look);
        assert.notEqual(state().state, 'deferred', `looked at ${look} ms and found the folder`);
      }
      last = look;
    }
    const replica = replicaLocation(placementOf(paths), project).replica;
    assert.ok(existsSync(replica), 'the replica is made in the folder that appeared');
  });
});
