// Bounded mirror steps and the switches that hold the mirror:
//   - every step copies at most 8 raw records and checks at most 32
//     metadata ids (measured on the replica between steps, not only taken
//     from the step's own report); a large project takes many steps;
//   - a restarted mirror over a synced replica reads no record again;
//   - a replica's FTS5 index is merged in steps of its own, not inside the
//     copy commits (automerge off), and a finished sync leaves it merged;
//   - {"history": {"ingest": false}} holds the mirror with capture (nothing
//     written while paused), and it continues when switched back on;
//   - while replicas catch up with nothing left to capture, the service's
//     phase is idle and the mirror's is syncing.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { MirrorStatus } from '../protocols/mirror.ts';
import type { HistoryStatus } from '../protocols/service.ts';
import { LIMITS } from '../src/config/limits.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { HOME_MIRRORS, replicaName } from '../src/mirror/location.ts';
import { MirrorSync } from '../src/mirror/mirror-sync.ts';
import { openWriter } from '../src/store/open.ts';
import { cli, cliJson, envFor, spawnCli, tempDir } from './helpers/home.ts';
import { claudeSession, ftsCounts, withReplica } from './helpers/mirror.ts';

const id = (n: number): string => `40000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function count(path: string, table: string): number {
  if (!existsSync(path)) return 0;
  return withReplica(path, (db) => {
    try {
      return db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    } catch {
      return 0;
    }
  });
}

/** The running service's status once `test` holds for it (60 s at most). */
async function liveStatus(env: NodeJS.ProcessEnv, test: (s: HistoryStatus) => boolean): Promise<HistoryStatus> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const s = (await cliJson<{ service: HistoryStatus | null }>(['status', '--json'], env)).service;
    if (s !== null && test(s)) return s;
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify({ phase: s?.phase, backlog: s?.backlog, mirror: s?.mirror })}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('mirror steps', () => {
  it('copies at most 8 records and checks at most 32 ids per step, and reads nothing again after a restart', async () => {
    const home = tempDir();
    const bridge = join(tempDir('abh-steps-'), 'bridge');
    const project = join(tempDir('abh-steps-project-'), 'big');
    mkdirSync(project);
    for (let i = 0; i < 70; i++) claudeSession(home, { session: id(i), cwd: project, lines: 2, word: 'stepwren' });
    claudeSession(home, { session: id(99), cwd: project, lines: 2500, word: 'stepwren', fill: 400 }); // many 64 KiB records
    const env = envFor(home, { AGENT_BRIDGE_HOME: bridge });
    const capture = await cli(['ingest', '--once', '--pace', 'max'], { ...env, AGENT_BRIDGE_HISTORY_MIRRORS: 'off' });
    assert.equal(capture.code, 0, capture.stderr);

    const replica = join(bridge, HOME_MIRRORS, replicaName(project));
    const paths = resolvePaths(env);
    let sync = new MirrorSync({ paths, env, limits: LIMITS, mode: 'once' });
    let steps = 0;
    let copied = 0;
    let checked = 0;
    for (let more = true; more; steps++) {
      const before = count(replica, 'conversation_records');
      const result = await sync.step();
      const grew = count(replica, 'conversation_records') - before;
      assert.ok(result.copied <= 8 && grew <= 8, `step ${steps}: ${grew} records copied`);
      assert.equal(grew, result.copied);
      assert.ok(result.checked <= 32, `step ${steps}: ${result.checked} ids checked`);
      copied += result.copied;
      checked += result.checked;
      more = result.more;
      assert.ok(steps < 3000, 'the sync ends (copy, check and merge steps)');
    }
    sync.close();
    const records = count(replica, 'conversation_records');
    assert.equal(copied, records);
    assert.ok(records > 80, `a large project (${records} records)`);
    assert.ok(steps >= Math.ceil(records / 8), `it took many steps (${steps})`);
    assert.equal(checked, 71 + 1, 'each conversation checked once, and the one project listed');
    assert.deepEqual(ftsCounts(replica, 'stepwren'), { fts: 70 * 2 + 2500, bodies: 70 * 2 + 2500 });

    // A restart: the cursors are in the replica; a full sweep copies nothing.
    sync = new MirrorSync({ paths, env, limits: LIMITS, mode: 'once' });
    let again = 0;
    let sweeps = 0;
    for (let more = true; more; sweeps++) {
      const result = await sync.step();
      again += result.copied;
      more = result.more;
    }
    assert.equal(sync.projects()[0]?.state, 'synced');
    sync.close();
    assert.equal(again, 0, 'no record copied twice');
    assert.ok(sweeps <= 6, `a sweep of 71 conversations in steps of 32 (${sweeps} steps)`);
  });

  it('merges the replica\'s FTS5 index in steps of its own, and a finished sync leaves nothing to merge', async () => {
    const home = tempDir();
    const bridge = join(tempDir('abh-merge-'), 'bridge');
    const project = join(tempDir('abh-merge-project-'), 'merged');
    mkdirSync(project);
    // Lines of 20 KB: records of three lines, one to a copy step (their text fills its budget): 110 copy commits.
    claudeSession(home, { session: id(150), cwd: project, lines: 330, word: 'mergewren', fill: 20_000 });
    const env = envFor(home, { AGENT_BRIDGE_HOME: bridge });
    const capture = await cli(['ingest', '--once', '--pace', 'max'], { ...env, AGENT_BRIDGE_HISTORY_MIRRORS: 'off' });
    assert.equal(capture.code, 0, capture.stderr);

    const replica = join(bridge, HOME_MIRRORS, replicaName(project));
    const segments = (): number => (existsSync(replica) ? withReplica(replica, (db) => db.prepare('SELECT count(DISTINCT segid) FROM history_fts_idx').pluck().get() as number) : 0);
    const sync = new MirrorSync({ paths: resolvePaths(env), env, limits: LIMITS, mode: 'once' });
    let copySteps = 0;
    let mergeSteps = 0;
    for (let more = true, steps = 0; more; steps++) {
      const before = segments();
      const result = await sync.step();
      const after = segments();
      if (result.copied > 0) {
        copySteps++;
        // One segment per copy step (its documents go in one statement), and no merge inside its commit (automerge is off).
        assert.ok(after === before + 1, `a copy step went from ${before} to ${after} segments`);
      } else if (after < before) mergeSteps++;
      more = result.more;
      assert.ok(steps < 3000, 'the sync ends');
    }
    sync.close();
    assert.ok(copySteps >= 100, `${copySteps} copy commits`);
    assert.ok(mergeSteps > 0, 'merge steps ran');
    withReplica(replica, (db) => {
      assert.equal(db.prepare("SELECT v FROM history_fts_config WHERE k = 'automerge'").pluck().get(), 0, 'automerge is off in the replica');
    });
    const left = segments();
    // FTS5 keeps fewer than 4 (usermerge) segments on each level once merged; a hundred commits unmerged would be a hundred.
    assert.ok(left <= 12, `${left} segments after ${copySteps} copy commits`);
    const db = new Database(replica);
    try {
      const changes = db.prepare('SELECT total_changes()').pluck();
      const before = changes.get() as number;
      db.prepare("INSERT INTO history_fts (history_fts, rank) VALUES ('merge', 64)").run();
      assert.ok((changes.get() as number) - before < 2, 'a finished sync leaves nothing to merge');
      db.prepare("INSERT INTO history_fts (history_fts, rank) VALUES ('integrity-check', 1)").run();
    } finally {
      db.close();
    }
    assert.deepEqual(ftsCounts(replica, 'mergewren'), { fts: 330, bodies: 330 });
  });

  it('copies as many records as fit in a step\'s byte budget, their documents\' text counted (a first record may exceed it)', async () => {
    const home = tempDir();
    const bridge = join(tempDir('abh-bytes-'), 'bridge');
    const project = join(tempDir('abh-bytes-project-'), 'wide');
    mkdirSync(project);
    // A record is at most a 64 KiB chunk of lines: these make records of 30 to 64 KiB, a few of them to a step,
    // and two lines of 300 KB, each cut across records, whose text is a document far larger than its record.
    claudeSession(home, { session: id(200), cwd: project, lines: 24, word: 'widewren', fill: 30_000 });
    claudeSession(home, { session: id(201), cwd: project, lines: 2, word: 'widewren', fill: 300_000 });
    claudeSession(home, { session: id(202), cwd: project, lines: 40, word: 'widewren', fill: 200 });
    // Small conversations of one small record each, several of which fit in one step.
    for (let i = 0; i < 12; i++) claudeSession(home, { session: id(210 + i), cwd: project, lines: 3, word: 'widewren', fill: 100 });
    const env = envFor(home, { AGENT_BRIDGE_HOME: bridge });
    const capture = await cli(['ingest', '--once', '--pace', 'max'], { ...env, AGENT_BRIDGE_HISTORY_MIRRORS: 'off' });
    assert.equal(capture.code, 0, capture.stderr);

    const replica = join(bridge, HOME_MIRRORS, replicaName(project));
    const sizes = (): Map<number, number> =>
      new Map(
        existsSync(replica)
          ? withReplica(
              replica,
              (db) =>
                db
                  .prepare(
                    `SELECT r.id, length(r.raw) + length(CAST(r.body AS BLOB)) + coalesce((SELECT sum(length(CAST(d.body AS BLOB))) FROM history_documents d
                       WHERE (d.id >= 'durable:' || r.id || ':' AND d.id < 'durable:' || r.id || ';') OR d.id = 'durable:' || r.id), 0) AS size
                     FROM conversation_records r`,
                  )
                  .raw()
                  .all() as Array<[number, number]>,
            )
          : [],
      );
    const budget = LIMITS.mirrorStepBytes;
    const sync = new MirrorSync({ paths: resolvePaths(env), env, limits: LIMITS, mode: 'once' });
    const perStep: number[][] = [];
    for (let more = true, steps = 0; more; steps++) {
      const before = sizes();
      const result = await sync.step();
      const added = [...sizes()].filter(([id]) => !before.has(id)).map(([, size]) => size);
      assert.equal(added.length, result.copied);
      if (added.length > 0) perStep.push(added);
      more = result.more;
      assert.ok(steps < 1000);
    }
    sync.close();
    const central = new Database(join(bridge, 'history.db'), { readonly: true });
    const captured = central.prepare('SELECT count(*) FROM conversation_records').pluck().get() as number;
    const found = central.prepare('SELECT count(*) FROM history_fts WHERE history_fts MATCH ?').pluck().get('"widewren"') as number;
    central.close();
    assert.equal(sizes().size, captured, 'every record copied');
    for (const step of perStep) {
      const total = step.reduce((a, b) => a + b, 0);
      assert.ok(step.length <= 8, `${step.length} records in a step`);
      // Records, their bodies and their documents' text fit in the budget; only a step's first record may exceed it, alone.
      assert.ok(step.length === 1 || total <= budget, `a step of ${step.length} records and ${total} bytes (budget ${budget})`);
    }
    assert.ok(perStep.some((step) => step.length > 1), 'small records share a step');
    assert.ok(perStep.some((step) => step.length === 1 && (step[0] as number) > budget), 'a record whose documents exceed the budget is copied, alone');
    assert.ok(perStep.length >= Math.ceil(captured / 8) + 3, `more steps (${perStep.length}) than 8 records each would take`);
    assert.ok(found >= 66 + 36, `every line is a document centrally (${found})`);
    assert.deepEqual(ftsCounts(replica, 'widewren'), { fts: found, bodies: found });
  });

  it('brings documents up to date after a central reindex, without copying records again', async () => {
    const home = tempDir();
    const bridge = join(tempDir('abh-reindexed-'), 'bridge');
    const project = join(tempDir('abh-reindexed-project-'), 'rederived');
    mkdirSync(project);
    for (let i = 0; i < 3; i++) claudeSession(home, { session: id(300 + i), cwd: project, lines: 4, word: 'beforeword' });
    const env = envFor(home, { AGENT_BRIDGE_HOME: bridge });
    // A central store in the layout that keeps every body, so that rewriting bodies below plays a reindex that
    // derives other text (in the derived-text layout a body is a recipe over the raw bytes, which stay as captured).
    mkdirSync(bridge, { recursive: true });
    openWriter(join(bridge, 'history.db'), { storedBodies: true }).close();
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    const replica = join(bridge, HOME_MIRRORS, replicaName(project));
    assert.deepEqual(ftsCounts(replica, 'beforeword'), { fts: 12, bodies: 12 });

    // What a reindex that derives different text leaves behind: other document bodies, and its completion time.
    const central = new Database(join(bridge, 'history.db'));
    central.prepare("UPDATE history_documents SET body = replace(body, 'beforeword', 'afterword')").run();
    central.prepare("INSERT INTO history_cursors (source, cursor) VALUES ('reindex-done', ?) ON CONFLICT(source) DO UPDATE SET cursor = excluded.cursor").run(String(Date.now()));
    central.close();

    const sync = new MirrorSync({ paths: resolvePaths(env), env, limits: LIMITS, mode: 'once' });
    let copied = 0;
    for (let more = true, n = 0; more && n < 100; n++) {
      const result = await sync.step();
      copied += result.copied;
      more = result.more;
    }
    sync.close();
    assert.equal(copied, 0, 'no record copied again');
    assert.deepEqual(ftsCounts(replica, 'afterword'), { fts: 12, bodies: 12 }, 'the documents follow the reindex, FTS included');
    assert.deepEqual(ftsCounts(replica, 'beforeword'), { fts: 0, bodies: 0 });
    const viaReplica = await cliJson<{ hits: unknown[] }>(['search', 'afterword', '--db', replica, '--limit', '50', '--json'], env);
    const viaCentral = await cliJson<{ hits: unknown[] }>(['search', 'afterword', '--project', project, '--limit', '50', '--json'], env);
    assert.deepEqual(viaReplica.hits, viaCentral.hits);
  });

  it('reports capture idle while the replicas still catch up (a rebuild at the spec pace takes many steps)', async () => {
    const home = tempDir();
    const bridge = join(tempDir('abh-catchup-'), 'bridge');
    const project = join(tempDir('abh-catchup-project-'), 'slow');
    mkdirSync(project);
    for (let i = 0; i < 600; i++) claudeSession(home, { session: id(1000 + i), cwd: project, lines: 2, word: 'catchwren' }); // 600 records: 75 steps of 8
    const env = envFor(home, { AGENT_BRIDGE_HOME: bridge });
    const capture = await cli(['ingest', '--once', '--pace', 'max'], { ...env, AGENT_BRIDGE_HISTORY_MIRRORS: 'off' });
    assert.equal(capture.code, 0, capture.stderr);
    const serve = spawnCli(['serve', '--no-dashboard'], env);
    const exited = new Promise<void>((resolve) => serve.on('exit', () => resolve()));
    try {
      const seen = await liveStatus(env, (s) => {
        const replica = s.mirror.projects.find((p) => p.project === project);
        return s.discovery.passes >= 1 && s.backlog.sources === 0 && replica?.state === 'syncing' && (replica.behind ?? 0) > 0;
      });
      assert.equal(seen.phase, 'idle', `capture's phase while the replica is ${JSON.stringify(seen.mirror.projects)}`);
      assert.equal(seen.mirror.phase, 'syncing');
    } finally {
      serve.kill('SIGTERM');
      await exited;
    }
  });

  it('holds the mirror while the config switch pauses capture and continues when it is switched back', async () => {
    const home = tempDir();
    const project = join(tempDir('abh-paused-'), 'held');
    mkdirSync(project);
    claudeSession(home, { session: id(200), cwd: project, lines: 4, word: 'heldwren' });
    const bridge = join(home, '.agent-bridge');
    mkdirSync(bridge, { recursive: true });
    writeFileSync(join(bridge, 'config.json'), JSON.stringify({ history: { ingest: false } }));
    const env = envFor(home);
    const serve = spawnCli(['serve'], env);
    const exited = new Promise<void>((resolve) => serve.on('exit', () => resolve()));
    try {
      const paused = await liveStatus(env, (s) => s.pausedBy.includes('config') && s.mirror.phase === 'paused');
      assert.deepEqual(paused.mirror.projects, [], 'nothing done while paused');
      await new Promise((r) => setTimeout(r, 2500));
      assert.equal(existsSync(join(project, '.agent-bridge')), false, 'nothing written while paused');
      const human = await cli(['status'], env);
      assert.match(human.stdout.toString(), /mirrors: paused/);

      writeFileSync(join(bridge, 'config.json'), JSON.stringify({ history: { ingest: true } }));
      // The phase follows the project's state on a later step (a status published between the two shows syncing).
      const resumed = await liveStatus(env, (s) => s.mirror.phase === 'synced' && s.mirror.projects.some((p) => p.project === project));
      assert.equal(resumed.mirror.projects.find((p) => p.project === project)?.state, 'synced');
      const report = await cliJson<MirrorStatus & { live: boolean }>(['mirrors', '--json'], env);
      assert.equal(report.live, true);
      assert.equal(report.projects.find((p) => p.project === project)?.records, 1);
    } finally {
      serve.kill('SIGTERM');
      await exited;
    }
  });
});
