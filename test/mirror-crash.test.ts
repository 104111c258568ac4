// Replica crash safety and concurrent readers, with real processes:
//   - while `agent-bridge ingest --once` syncs the replicas from scratch, this
//     process reads a replica read-only the whole time (a long-lived
//     connection and `search --db` processes): every read succeeds and what
//     it sees only grows;
//   - then the syncing process is SIGKILLed at 20+ random moments while it
//     copies (a replica grew during the round and one is still behind; lines
//     keep arriving, and when every replica has caught up one is deleted, so
//     there is always a sync to interrupt); after a final run every replica
//     equals one synced from scratch from the same central store (same rows,
//     same cursors): nothing lost, nothing twice.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SearchHistoryOutput } from '../protocols/search.ts';
import { LIMITS } from '../src/config/limits.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { HOME_MIRRORS, replicaName } from '../src/mirror/location.ts';
import { MirrorSync } from '../src/mirror/mirror-sync.ts';
import { cli, cliJson, envFor, prng, spawnCli, tempDir } from './helpers/home.ts';
import { claudeSession, projectReplica, replicaRows, repository } from './helpers/mirror.ts';

const KILLS = 20;
const id = (n: number): string => `20000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function projectRecords(home: string, project: string): number {
  const db = new Database(join(home, '.agent-bridge', 'history.db'), { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM conversation_records r JOIN conversations c ON c.id = r.conversation WHERE c.project = ?').pluck().get(project) as number;
  } finally {
    db.close();
  }
}

function replicaRecords(path: string): number {
  if (!existsSync(path)) return 0;
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM conversation_records').pluck().get() as number;
  } catch {
    return 0; // not created yet (no schema)
  } finally {
    db.close();
  }
}

/** Replicas synced from scratch, in process, from a copy of the central store (a custom home: all in project-mirrors). */
async function fromScratch(home: string): Promise<string> {
  const bridge = join(tempDir('abh-scratch-'), 'bridge');
  mkdirSync(bridge);
  for (const suffix of ['', '-wal']) {
    const from = join(home, '.agent-bridge', `history.db${suffix}`);
    if (existsSync(from)) copyFileSync(from, join(bridge, `history.db${suffix}`));
  }
  const env = { ...envFor(home), AGENT_BRIDGE_HOME: bridge };
  const sync = new MirrorSync({ paths: resolvePaths(env), env, limits: LIMITS, mode: 'once' });
  try {
    for (let steps = 0; ; steps++) {
      assert.ok(steps < 100_000, 'a from-scratch sync ends');
      if (!(await sync.step()).more) break;
    }
  } finally {
    sync.close();
  }
  return join(bridge, HOME_MIRRORS);
}

describe('replicas under SIGKILL and concurrent readers', () => {
  it(`reads a replica while it syncs, and loses and duplicates nothing when syncing is SIGKILLed at ${KILLS}+ moments`, async () => {
    const { root: a, worktree } = repository('crash-a', { worktree: true });
    const b = repository('crash-b').root;
    const c = join(tempDir('abh-crash-plain-'), 'plain');
    mkdirSync(c);
    const projects = [a, b, c];
    const cwds = [join(worktree as string, 'pkg'), join(a, 'src'), b, c];
    const home = tempDir();
    let n = 0;
    const sessions = (count: number, lines: number): void => {
      for (let i = 0; i < count; i++, n++) claudeSession(home, { session: id(n), cwd: cwds[n % cwds.length] as string, lines, word: 'crashlark', fill: 300 });
    };
    sessions(12, 1600); // about 13 records of 64 KiB each
    sessions(40, 3);
    const env = envFor(home);
    const capture = await cli(['ingest', '--once', '--pace', 'max'], { ...env, AGENT_BRIDGE_HISTORY_MIRRORS: 'off' });
    assert.equal(capture.code, 0, capture.stderr);
    assert.equal(existsSync(join(a, '.agent-bridge')), false, 'mirrors off: nothing written into projects');

    // A second process reads the replica of A while `ingest --once` syncs it from scratch.
    const replicaA = projectReplica(a);
    const sync = spawnCli(['ingest', '--once', '--pace', 'spec'], env);
    const synced = new Promise<number | null>((resolve) => sync.on('exit', (code) => resolve(code)));
    let done = false;
    void synced.then(() => (done = true));
    const seen: number[] = [];
    const searched: number[] = [];
    const searching = (async () => {
      while (!done && searched.length < 3) {
        if (seen.some((x) => x > 0)) {
          const result = await cliJson<SearchHistoryOutput>(['search', 'crashlark', '--db', replicaA, '--limit', '50', '--json'], env);
          assert.equal(result.store, 'replica');
          searched.push(result.hits.length);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    let reader: Database.Database | null = null;
    while (!done) {
      if (reader === null && existsSync(replicaA)) {
        try {
          reader = new Database(replicaA, { readonly: true, fileMustExist: true });
          reader.pragma('query_only = ON');
          reader.prepare('SELECT 1 FROM conversation_records LIMIT 1').get();
        } catch {
          reader?.close(); // the schema is not committed yet
          reader = null;
        }
      }
      if (reader !== null) seen.push(reader.prepare('SELECT count(*) FROM conversation_records').pluck().get() as number);
      await new Promise((r) => setTimeout(r, 20));
    }
    await searching;
    assert.equal(await synced, 0);
    reader?.close();
    const totalA = projectRecords(home, a);
    assert.ok(seen.length > 10, `read the replica while it synced (${seen.length} reads)`);
    assert.ok(seen.some((x) => x > 0 && x < totalA), 'saw a partly synced replica');
    for (let i = 1; i < seen.length; i++) assert.ok((seen[i] as number) >= (seen[i - 1] as number), 'what a reader sees only grows');
    assert.ok(searched.length > 0 && searched.every((h) => h > 0), `search --db answered during the sync (${searched.join(', ')})`);
    assert.equal(replicaRecords(replicaA), totalA);

    // Kill rounds: once a replica is seen growing, wait a random 0-0.8 s more and SIGKILL.
    const random = prng(20261202);
    let kills = 0;
    const killedAfter: number[] = [];
    for (let round = 0; kills < KILLS && round < KILLS * 3; round++) {
      const before = projects.map((p) => replicaRecords(projectReplica(p)));
      if (projects.every((p, i) => before[i] === projectRecords(home, p))) rmSync(projectReplica(projects[round % projects.length] as string));
      claudeSession(home, { session: id(round % 12), cwd: cwds[round % 12 % cwds.length] as string, lines: 20, word: 'crashlark', fill: 300 }, { append: true });
      const child = spawnCli(['ingest', '--once', '--pace', 'spec'], env);
      let exited = false;
      const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => ((exited = true), resolve(code))));
      const started = Date.now();
      while (!exited && Date.now() - started < 30_000 && projects.every((p, i) => replicaRecords(projectReplica(p)) <= (before[i] as number))) {
        await new Promise((r) => setTimeout(r, 25));
      }
      const extra = Math.floor(random() * 800);
      await new Promise((r) => setTimeout(r, extra));
      child.kill('SIGKILL');
      if ((await exit) !== null) continue;
      const after = projects.map((p) => replicaRecords(projectReplica(p)));
      const copying = after.some((x, i) => x > (before[i] as number)) && projects.some((p, i) => (after[i] as number) < projectRecords(home, p));
      if (copying) {
        kills++;
        killedAfter.push(extra);
      }
    }
    assert.ok(kills >= KILLS, `${kills} kills while replicas were being copied (${killedAfter.join(', ')} ms after copying was seen)`);

    const finish = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(finish.code, 0, finish.stderr);
    const scratch = await fromScratch(home);
    for (const p of projects) {
      const recovered = replicaRows(projectReplica(p));
      assert.equal((recovered.records as unknown[]).length, projectRecords(home, p), `${p}: every record`);
      assert.deepEqual(recovered, replicaRows(join(scratch, replicaName(p))), `${p}: equal to a from-scratch sync`);
    }
  });
});
