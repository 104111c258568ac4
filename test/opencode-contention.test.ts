// OpenCode capture under contention, with real processes: a writer rewriting
// a large part while capture runs, a database locked by another connection,
// and corrupt database files. Nothing crashes, problems are reported with
// their path and reason, nothing retained is lost, capture resumes.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cli, cliJson, envFor, fixtureHome, sqliteModule } from './helpers/home.ts';
import { withStore } from './helpers/store.ts';
import { OPENCODE_DIR } from './helpers/opencode.ts';

interface Summary {
  records: number;
  status: { problems: Array<{ path: string; code: string; message: string }> };
}

const ROOT = 'ses_313ff387fffe1jbvy232toq8go';
const MESSAGE = 'msg_cec01b5c8001Pl6xUbAWXcOs7s';
const PART = 'prt_zzwriterpart0000000000001';
const BASE_TIME = 1_900_000_000_000;

/** Data of revision i of the writer's part: > 1 MiB, so one revision takes several batches. */
const revisionData = `(i) => JSON.stringify({ type: 'text', text: 'writerhead' + i + ' ' + 'lorem ipsum dolor '.repeat(60000 + i * 97) + ' writertail' + i })`;

function node(script: string, args: string[]): ChildProcess {
  return spawn(process.execPath, ['-e', script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
}

async function ingestJson(env: NodeJS.ProcessEnv): Promise<Summary> {
  return cliJson<Summary>(['ingest', '--once', '--pace', 'max', '--json'], env);
}

async function hits(env: NodeJS.ProcessEnv, word: string): Promise<Array<{ conversation: string }>> {
  return (await cliJson<{ hits: Array<{ conversation: string }> }>(['search', word, '--json', '--limit', '50'], env)).hits;
}

/** Holds a lock (BEGIN <mode>) with an uncommitted new part until a line arrives on stdin, then commits. */
const LOCK_HOLDER = `
  const D = require(process.argv[1]);
  const db = new D(process.argv[2]);
  db.exec('BEGIN ' + process.argv[3]);
  db.prepare("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_zzlocked000000000000001', ?, ?, ?, ?, ?)")
    .run('${MESSAGE}', '${ROOT}', ${BASE_TIME}, ${BASE_TIME}, JSON.stringify({ type: 'text', text: 'lockedwalnut' }));
  process.stdout.write('locked\\n');
  process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });
`;

async function holdLock(dbPath: string, mode: 'EXCLUSIVE' | 'IMMEDIATE'): Promise<ChildProcess> {
  const holder = node(LOCK_HOLDER, [sqliteModule, dbPath, mode]);
  const [line] = (await once(holder.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  assert.equal(line.toString().trim(), 'locked');
  return holder;
}

async function release(holder: ChildProcess): Promise<void> {
  holder.stdin?.write('go\n');
  await once(holder, 'exit');
}

describe('OpenCode capture under contention', () => {
  it('copies every settled revision of a part a writer process rewrites while capture runs, completely and exactly', async (t) => {
    const { home } = fixtureHome();
    const env = envFor(home);
    const dbPath = join(home, OPENCODE_DIR, 'opencode.db');
    const writer = node(
      `const D = require(process.argv[1]); const data = ${revisionData};
       const db = new D(process.argv[2]); db.pragma('journal_mode = WAL');
       db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run('${PART}', '${MESSAGE}', '${ROOT}', ${BASE_TIME}, ${BASE_TIME}, data(0));
       const update = db.prepare('UPDATE part SET data = ?, time_updated = ? WHERE id = ?');
       let i = 0;
       const tick = () => { i++; update.run(data(i), ${BASE_TIME} + i, '${PART}'); if (i < 60) setTimeout(tick, 40); else { db.close(); process.exit(0); } };
       setTimeout(tick, 40);`,
      [sqliteModule, dbPath],
    );
    const exited = once(writer, 'exit');
    let running = true;
    void exited.then(() => {
      running = false;
    });
    do await ingestJson(env);
    while (running);
    await ingestJson(env);

    const data = eval(revisionData) as (i: number) => string;
    const revisions = withStore(home, (db) =>
      db.prepare('SELECT source, generation, offset, raw FROM conversation_records WHERE part = ? ORDER BY source, generation, offset').all(PART),
    ) as Array<{ source: string; generation: number; offset: number; raw: Buffer }>;
    const bySource = new Map<string, Buffer[]>();
    for (const r of revisions) bySource.set(`${r.source}|${r.generation}`, [...(bySource.get(`${r.source}|${r.generation}`) ?? []), r.raw]);
    assert.ok(bySource.size >= 1);
    let last = -1;
    let partial = 0;
    for (const [key, slices] of bySource) {
      const i = Number(key.split('|')[0]?.split(':').at(-1)) - BASE_TIME;
      const expected = Buffer.from(data(i), 'utf8');
      const copied = Buffer.concat(slices);
      assert.ok(slices.every((s) => s.length <= 64 * 1024), key);
      // Observed slices of a revision that changed while being copied are an exact prefix of it.
      assert.deepEqual(copied, expected.subarray(0, copied.length), key);
      last = Math.max(last, i);
      if (copied.length < expected.length) partial++;
      if (i === 60) assert.equal(copied.length, expected.length, 'the settled revision is complete');
    }
    assert.equal(last, 60);
    t.diagnostic(`${bySource.size} revisions retained, ${partial} of them partial (changed while copied)`);
    assert.deepEqual((await hits(env, 'writertail60')).map((h) => h.conversation), [`opencode:${ROOT}`]);
  });

  it('reports a locked database, loses nothing, and resumes when the lock goes', async () => {
    // A rollback-journal database: an exclusive lock blocks readers.
    const { home } = fixtureHome({ args: ['--no-wal'] });
    const env = envFor(home);
    const dbPath = join(home, OPENCODE_DIR, 'opencode.db');
    const holder = await holdLock(dbPath, 'EXCLUSIVE');
    try {
      const locked = await ingestJson(env);
      const problem = locked.status.problems.find((p) => p.path === dbPath);
      assert.equal(problem?.code, 'SOURCE_BUSY');
      assert.match(problem?.message ?? '', /locked/);
      assert.ok(locked.records > 0, 'the other sources were captured');
      assert.deepEqual(await hits(env, 'rootsequoia'), []);
    } finally {
      await release(holder);
    }
    const resumed = await ingestJson(env);
    assert.deepEqual(resumed.status.problems, []);
    assert.equal((await hits(env, 'rootsequoia')).length, 2);
    assert.deepEqual((await hits(env, 'lockedwalnut')).map((h) => h.conversation), [`opencode:${ROOT}`]);
  });

  it('reads committed rows of a WAL database while another connection holds its write lock', async () => {
    const { home } = fixtureHome();
    const env = envFor(home);
    const dbPath = join(home, OPENCODE_DIR, 'opencode.db');
    const holder = await holdLock(dbPath, 'IMMEDIATE');
    try {
      const during = await ingestJson(env);
      assert.deepEqual(during.status.problems, []);
      assert.equal((await hits(env, 'rootsequoia')).length, 2);
      assert.deepEqual(await hits(env, 'lockedwalnut'), []); // not committed yet
    } finally {
      await release(holder);
    }
    await ingestJson(env);
    assert.deepEqual((await hits(env, 'lockedwalnut')).map((h) => h.conversation), [`opencode:${ROOT}`]);
  });

  it('reports corrupt database files with path and reason while everything else is captured', async () => {
    const { home } = fixtureHome();
    const env = envFor(home);
    const dir = join(home, OPENCODE_DIR);
    const garbage = join(dir, 'opencode-garbage.db');
    const damaged = join(dir, 'opencode-damaged.db');
    writeFileSync(garbage, Buffer.from('this is not a database\n'.repeat(200)));
    const header = Buffer.alloc(8192, 0xab);
    Buffer.from('SQLite format 3\0', 'latin1').copy(header);
    header.writeUInt16BE(4096, 16);
    writeFileSync(damaged, header);
    const run = await ingestJson(env);
    const byPath = new Map(run.status.problems.map((p) => [p.path, p]));
    assert.equal(byPath.get(garbage)?.code, 'SOURCE_UNREADABLE');
    assert.match(byPath.get(garbage)?.message ?? '', /not a database|corrupt/);
    assert.equal(byPath.get(damaged)?.code, 'SOURCE_UNREADABLE');
    assert.equal((await hits(env, 'rootsequoia')).length, 2);
    assert.equal((await hits(env, 'quokkaflux')).length > 0, true);
    const again = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(again.code, 0, again.stderr);
  });
});
