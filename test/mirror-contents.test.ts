// What a replica holds and how it follows the central store, through the real
// CLI (specification, "Project folder and settings"):
//   - only conversations of its project (by the identity capture assigns),
//     with raw records byte-exactly, documents with a working FTS5 index,
//     aliases, bindings and conversation metadata; plugin installation caches
//     stay central;
//   - `search --db` and `conversation --db` answer from a replica exactly as
//     the central store answers for that project;
//   - a late job binding and a late project association arrive on a later
//     sweep, without copying again what was copied;
//   - a shared bridge thread associated with a project is copied in full;
//   - a deleted replica or folder is rebuilt with identical rows; a folder
//     moved to another project leaves the moved replica untouched.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { MirrorStatus, ProjectMirrorStatus } from '../protocols/mirror.ts';
import type { GetConversationOutput, SearchHistoryOutput } from '../protocols/search.ts';
import type { OnceSummary } from '../protocols/service.ts';
import { EXCLUDE_LINE } from '../src/mirror/git-exclude.ts';
import { HOME_MIRRORS, replicaName } from '../src/mirror/location.ts';
import { bridgeEnv, generateBridgeHome, prepareHistory } from './helpers/bridge.ts';
import { cliJson, envFor, sha256, tempDir } from './helpers/home.ts';
import { claudeSession, ftsCounts, git, projectReplica, replicaRows, repository, withReplica } from './helpers/mirror.ts';

const id = (n: number): string => `10000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

async function once(env: NodeJS.ProcessEnv): Promise<MirrorStatus> {
  return (await cliJson<OnceSummary>(['ingest', '--once', '--pace', 'max', '--json'], env)).status.mirror;
}

function project(status: MirrorStatus, root: string): ProjectMirrorStatus {
  const found = status.projects.find((p) => p.project === root);
  assert.ok(found !== undefined, `${root} is listed`);
  return found;
}

function conversationIds(replica: string): string[] {
  return withReplica(replica, (db) => db.prepare('SELECT id FROM conversations ORDER BY id').pluck().all() as string[]);
}

function jobs(home: string, list: Array<Record<string, unknown>>): void {
  mkdirSync(join(home, '.agent-bridge'), { recursive: true });
  writeFileSync(join(home, '.agent-bridge', 'jobs.json'), JSON.stringify({ jobs: list, version: 2 }));
}

describe('replica contents', () => {
  it('holds only its project, answers search and conversation pages like the central store, follows late associations and is rebuilt when deleted', async () => {
    const a = repository('alpha').root;
    const b = repository('beta').root;
    const c = repository('gamma').root;
    const home = tempDir();
    const plugin = join(home, '.claude', 'plugins', 'cache', 'market', 'helper', '1.0.0');
    mkdirSync(plugin, { recursive: true });
    claudeSession(home, { session: id(1), cwd: join(a, 'src'), lines: 40, word: 'alphafinch', fill: 5000 });
    claudeSession(home, { session: id(2), cwd: b, lines: 20, word: 'betafinch' });
    claudeSession(home, { session: id(3), lines: 15, word: 'latefinch' }); // no cwd: no project yet
    claudeSession(home, { session: id(4), cwd: a, lines: 10, word: 'boundfinch' });
    claudeSession(home, { session: id(5), cwd: plugin, lines: 5, word: 'pluginfinch' });
    const env = envFor(home);

    const first = await once(env);
    const replicaA = projectReplica(a);
    assert.equal(project(first, a).state, 'synced');
    assert.equal(project(first, b).state, 'synced');
    assert.equal(first.infrastructure, 1, 'the plugin cache is infrastructure');
    assert.equal(first.projects.some((p) => p.project.startsWith(join(home, '.claude'))), false);
    assert.equal(existsSync(join(plugin, '.agent-bridge')), false, 'no replica in the plugin cache');
    assert.deepEqual(conversationIds(replicaA), [`claude:${id(1)}`, `claude:${id(4)}`]);
    assert.deepEqual(conversationIds(projectReplica(b)), [`claude:${id(2)}`]);

    // Records byte-exactly: the replica's rows are the central rows of those conversations.
    const central = new Database(join(home, '.agent-bridge', 'history.db'), { readonly: true });
    const centralRecords = (ids: string[]): unknown[] =>
      (central.prepare(`SELECT id, source, generation, offset, conversation, at, raw, body, part FROM conversation_records WHERE conversation IN (${ids.map(() => '?').join(',')}) ORDER BY id`).all(...ids) as Array<{ raw: Buffer }>).map((r) => ({ ...r, raw: sha256(r.raw) }));
    assert.deepEqual(replicaRows(replicaA).records, centralRecords([`claude:${id(1)}`, `claude:${id(4)}`]));
    assert.ok((replicaRows(replicaA).records as unknown[]).length > 2, 'several records (a transcript of more than one chunk)');
    assert.deepEqual(ftsCounts(replicaA, 'alphafinch'), { fts: 40, bodies: 40 });
    assert.deepEqual(ftsCounts(replicaA, 'betafinch'), { fts: 0, bodies: 0 }, 'nothing of another project');

    // The same contracts against the replica as against the central store.
    const viaReplica = await cliJson<SearchHistoryOutput>(['search', 'alphafinch', '--db', replicaA, '--limit', '50', '--json'], env);
    const viaCentral = await cliJson<SearchHistoryOutput>(['search', 'alphafinch', '--project', a, '--limit', '50', '--json'], env);
    assert.equal(viaReplica.store, 'replica');
    assert.equal(viaReplica.hits.length, 40);
    assert.deepEqual(viaReplica.hits, viaCentral.hits);
    const pages = async (extra: string[]): Promise<GetConversationOutput[]> => {
      const out: GetConversationOutput[] = [];
      for (let after = 0; ; ) {
        const page = await cliJson<GetConversationOutput>(['conversation', `claude:${id(1)}`, '--after', String(after), '--limit', '1', '--json', ...extra], env);
        out.push(page);
        if (page.next === null) return out;
        after = page.next;
      }
    };
    const replicaPages = await pages(['--db', replicaA]);
    assert.ok(replicaPages.length > 2);
    assert.deepEqual(replicaPages, await pages([]));

    // Late associations: a job bound to a session of A, and a job whose workdir gives the cwd-less session its project.
    jobs(home, [
      { id: '00000001', name: 'late-project-job', agent: 'claude', sessionId: id(3), workdir: a, prompt: 'late project' },
      { id: '00000002', name: 'late-binding-job', agent: 'claude', sessionId: id(4), workdir: a, prompt: 'late binding' },
    ]);
    const copiedBefore = replicaRows(replicaA).records as Array<{ id: number }>;
    const second = await once(env);
    assert.equal(project(second, a).state, 'synced');
    const rows = replicaRows(replicaA);
    const conversations = rows.conversations as Array<{ id: string; job: string | null; project: string }>;
    assert.deepEqual(
      conversations.map((x) => [x.id, x.job]),
      [
        ['bridge:job:late-binding-job', 'late-binding-job'],
        ['bridge:job:late-project-job', 'late-project-job'],
        [`claude:${id(1)}`, null],
        [`claude:${id(3)}`, 'late-project-job'],
        [`claude:${id(4)}`, 'late-binding-job'],
      ],
    );
    assert.equal(conversations.find((x) => x.id === `claude:${id(3)}`)?.project, a, 'the late project association');
    const newRecords = (rows.records as Array<{ id: number; conversation: string }>).filter((r) => !copiedBefore.some((o) => o.id === r.id));
    assert.deepEqual(
      [...new Set(newRecords.map((r) => r.conversation))].sort(),
      ['bridge:job:late-binding-job', 'bridge:job:late-project-job', `claude:${id(3)}`],
      'only the newly associated conversations were copied',
    );
    assert.equal(second.steps.records, newRecords.length, 'records copied before were not copied again');
    assert.deepEqual(ftsCounts(replicaA, 'latefinch'), { fts: 15, bodies: 15 });
    const byJob = await cliJson<SearchHistoryOutput>(['search', 'boundfinch', '--job', 'late-binding-job', '--db', replicaA, '--json'], env);
    assert.equal(byJob.hits.length, 10, 'the job filter follows the late binding in the replica');
    assert.ok((rows.sessions as Array<{ alias: string }>).some((s) => s.alias === 'late-binding-job'), 'the job name is an alias of its session');
    assert.ok((rows.bindings as Array<{ session: string; job: string }>).some((x) => x.session === id(4) && x.job === 'late-binding-job'));

    // Deleted replica, then deleted folder: rebuilt from the central store with identical rows.
    rmSync(replicaA);
    assert.equal(project(await once(env), a).state, 'synced');
    assert.deepEqual(replicaRows(replicaA), rows, 'rebuilt replica, identical rows');
    rmSync(join(a, '.agent-bridge'), { recursive: true });
    assert.equal(project(await once(env), a).state, 'synced');
    assert.deepEqual(replicaRows(replicaA), rows, 'rebuilt folder, identical rows');
    assert.deepEqual(readFileSync(join(a, '.git', 'info', 'exclude'), 'utf8').split('\n').filter((l) => l === EXCLUDE_LINE), [EXCLUDE_LINE]);
    assert.equal(git(a, 'status', '--porcelain'), '');

    // The folder moved to another project: that project gets its own replica; the moved one stays as it is.
    const moved = readFileSync(replicaA);
    renameSync(join(a, '.agent-bridge'), join(c, '.agent-bridge'));
    claudeSession(home, { session: id(6), cwd: c, lines: 4, word: 'gammafinch' });
    const third = await once(env);
    assert.equal(project(third, c).state, 'synced');
    assert.deepEqual(readdirSync(join(c, '.agent-bridge')).filter((n) => !/-(wal|shm)$/.test(n)).sort(), [replicaName(a), replicaName(c)].sort());
    assert.deepEqual(readFileSync(join(c, '.agent-bridge', replicaName(a))), moved, 'the moved replica is untouched');
    assert.deepEqual(conversationIds(projectReplica(c)), [`claude:${id(6)}`]);
    assert.deepEqual(replicaRows(replicaA), rows, 'the project that lost its folder is rebuilt');
    central.close();
  });

  it('copies a shared bridge thread in full into every project associated with it', async () => {
    const { dir } = generateBridgeHome();
    prepareHistory(dir);
    const thread = 'ffc87746-31a5-4b55-9cb1-209675dd5114'; // started by opencode-quarry (project quarry-tools)
    const bridge = new Database(join(dir, 'bridge.db'));
    bridge
      .prepare('INSERT INTO messages (id, recipient, from_id, from_name, from_agent, to_target, conversation_id, reply_to, hop, body, created_at, read_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 1, ?, ?, NULL)')
      .run('9d2f0c1e-5b7a-4c3d-8e9f-0a1b2c3d4e5f', 'opencode-quarry', '630b72de-219d-433a-8bd1-f0c321a11810', 'codex-orchard', 'codex', 'opencode-quarry', thread, 'sharedthreadlark reply from orchard', 1773392200000);
    bridge.close();
    const env = bridgeEnv(dir);
    const status = await once(env);
    assert.equal(status.placement, 'home', 'a custom home keeps replicas in <home>/project-mirrors');
    const orchard = '/home/fixture/work/orchard_app.v2';
    const quarry = '/home/fixture/work/quarry-tools';
    for (const p of [orchard, quarry]) assert.equal(project(status, p).state, 'synced', p);
    const centralThread = new Database(join(dir, 'history.db'), { readonly: true });
    const expected = (centralThread.prepare('SELECT id, source, generation, offset, conversation, at, raw, body, part FROM conversation_records WHERE conversation = ? ORDER BY id').all(`bridge:${thread}`) as Array<{ raw: Buffer }>).map((r) => ({ ...r, raw: sha256(r.raw) }));
    centralThread.close();
    assert.ok(expected.length >= 2, 'the thread has messages of both projects');
    for (const p of [orchard, quarry]) {
      const replica = join(dir, HOME_MIRRORS, replicaName(p));
      const rows = replicaRows(replica);
      assert.deepEqual((rows.records as Array<{ conversation: string }>).filter((r) => r.conversation === `bridge:${thread}`), expected, `${p}: the whole thread`);
      assert.deepEqual(ftsCounts(replica, 'sharedthreadlark'), { fts: 1, bodies: 1 });
    }
    const members = replicaRows(join(dir, HOME_MIRRORS, replicaName(orchard))).memberships;
    assert.deepEqual(members, [{ project: orchard, conversation: `bridge:${thread}` }], 'associated with orchard through its membership');
    const viaProject = await cliJson<SearchHistoryOutput>(['search', 'sharedthreadlark', '--project', orchard, '--json'], env);
    assert.equal(viaProject.hits.length, 1, 'the central store finds the thread under the associated project too');
  });

  it('keeps a replica it cannot use in the backup folder and builds it again', async () => {
    const a = repository('damaged').root;
    const home = tempDir();
    claudeSession(home, { session: id(30), cwd: a, lines: 6, word: 'damagedtern' });
    const env = envFor(home);
    await once(env);
    const rows = replicaRows(projectReplica(a));
    writeFileSync(projectReplica(a), 'this is not a database, but someone may want it back\n');
    assert.equal(project(await once(env), a).state, 'synced');
    assert.deepEqual(replicaRows(projectReplica(a)), rows);
    // (The -wal/-shm a reader left beside it travel with it.)
    const backups = readdirSync(join(a, '.agent-bridge', 'backups')).filter((n) => !/-(wal|shm|journal)$/.test(n));
    assert.equal(backups.length, 1);
    assert.equal(readFileSync(join(a, '.agent-bridge', 'backups', backups[0] as string), 'utf8'), 'this is not a database, but someone may want it back\n', 'kept byte for byte');
    // A replica copied from another project's folder is not this project's: moved aside too.
    const b = repository('other').root;
    claudeSession(home, { session: id(31), cwd: b, lines: 3, word: 'othertern' });
    await once(env);
    cpSync(projectReplica(b), projectReplica(a));
    assert.equal(project(await once(env), a).state, 'synced');
    assert.deepEqual(replicaRows(projectReplica(a)), rows);
    const kept = readdirSync(join(a, '.agent-bridge', 'backups')).filter((n) => !/-(wal|shm|journal)$/.test(n));
    assert.equal(kept.length, 2, 'the foreign replica is kept as well');
  });
});
