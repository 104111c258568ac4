// Job snapshots and job bindings.
//   queue     the snapshot queue stops at 100 entries or 8 MiB (the last may
//             cross); snapshots left over are queued by the next sweep.
//   bindings  on a generated v8 home captured from an empty history.db, with
//             Claude transcripts in the CLI home: a job bound to a session
//             after its transcript was captured (through jobs.json, or a job
//             peer's name in peer_names) tags the transcript and its native
//             child; a transcript that arrives after the binding takes the
//             job when it is first captured. The search side's job filter
//             reads exactly these tables (conversations.job,
//             conversation_bindings, history_sessions); it is not on this
//             branch, so the tables are checked.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { JobSweep } from '../src/bridge/job-sweep.ts';
import { JOB_QUEUE_BYTES, JOB_QUEUE_ENTRIES, markerOf, queueSnapshots, snapshotOf, type JobSnapshot } from '../src/bridge/jobs.ts';
import { bridgeEnv, generateBridgeHome, ingest, prepareHistory, withHistory } from './helpers/bridge.ts';
import { tempDir } from './helpers/home.ts';

const job = (i: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ id: `${i}`.padStart(8, '0'), name: `codex-job-${i}`, agent: 'codex', prompt: `job ${i}`, ...extra });

describe('the job snapshot queue', () => {
  it('stops at 100 entries', () => {
    const snapshots = Array.from({ length: 150 }, (_, i) => snapshotOf(job(i), 'jobs.json') as JobSnapshot);
    const { queue, more } = queueSnapshots(snapshots, () => false);
    assert.equal(queue.length, JOB_QUEUE_ENTRIES);
    assert.equal(more, true);
  });

  it('stops at 8 MiB, letting the snapshot that crosses it in', () => {
    const big = 3 * 1024 * 1024;
    const snapshots = Array.from({ length: 5 }, (_, i) => snapshotOf(job(i, { prompt: 'p'.repeat(big) }), 'jobs.json') as JobSnapshot);
    const { queue, more } = queueSnapshots(snapshots, () => false);
    assert.equal(queue.length, 3, 'two fit under 8 MiB, the third crosses it');
    assert.ok(queue.reduce((n, s) => n + s.raw.length, 0) > JOB_QUEUE_BYTES);
    assert.equal(more, true);
  });

  it('skips captured snapshots and reconsiders the rest on the next sweep', async () => {
    const home = tempDir('abh-jobs-');
    writeFileSync(join(home, 'jobs.json'), JSON.stringify({ jobs: Array.from({ length: 250 }, (_, i) => job(i)), version: 2 }));
    const captured = new Set<string>();
    const sweep = new JobSweep({ home, revisitMs: 60_000, now: Date.now, captured: (m) => captured.has(m) });
    let sweeps = 0;
    while (sweep.backlog && sweeps < 20) {
      const queued = await sweep.peek(1000);
      assert.ok(queued.length <= JOB_QUEUE_ENTRIES);
      for (const s of queued) captured.add(markerOf(s));
      sweep.drop(queued.length);
      sweeps++;
    }
    assert.equal(captured.size, 250);
    assert.equal(sweeps, 3);
    assert.deepEqual(await sweep.peek(10), [], 'nothing left; the unchanged file is not read again');
  });
});

function transcript(root: string, session: string, text: string, child?: string): void {
  const dir = join(root, 'projects', '-work-late-project');
  mkdirSync(join(dir, session, 'subagents'), { recursive: true });
  const line = (extra: Record<string, unknown>) => `${JSON.stringify({ type: 'user', sessionId: session, cwd: '/work/late-project', uuid: randomUUID(), timestamp: new Date().toISOString(), ...extra })}\n`;
  writeFileSync(join(dir, `${session}.jsonl`), line({ message: { role: 'user', content: text } }));
  if (child !== undefined) writeFileSync(join(dir, session, 'subagents', `agent-${child}.jsonl`), line({ isSidechain: true, agentId: child, message: { role: 'user', content: `${text} child` } }));
}

describe('jobs bound to CLI sessions, early and late (v8 home, empty history.db)', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const S1 = randomUUID();
  const S2 = randomUUID();
  const S3 = randomUUID();
  const A1 = 'a1b2c3d4e5f60718';
  const claudeRoot = (): string => join(dir, '..', 'user', '.claude');

  before(async () => {
    ({ dir } = generateBridgeHome());
    prepareHistory(dir);
    env = bridgeEnv(dir);
    transcript(claudeRoot(), S1, 'latebindingwalrus', A1);
    transcript(claudeRoot(), S2, 'peerbindingmarten');
    await ingest(env);
    withHistory(dir, (db) => assert.equal(db.prepare('SELECT job FROM conversations WHERE id = ?').pluck().get(`claude:${S1}`), null, 'not bound yet'));
    // The broker learns the bindings after the transcripts were captured.
    const jobs = JSON.parse(readFileSync(join(dir, 'jobs.json'), 'utf8')) as { jobs: unknown[] };
    jobs.jobs.push(
      { id: 'feed0001', name: 'claude-job-feed0001', agent: 'claude', status: 'running', sessionId: S1, workdir: '/work/late-project', prompt: 'Bound late.' },
      { id: 'feed0003', name: 'claude-job-feed0003', agent: 'claude', status: 'running', sessionId: S3, workdir: '/work/late-project', prompt: 'Bound early.' },
    );
    writeFileSync(join(dir, 'jobs.json'), `${JSON.stringify(jobs, null, 2)}\n`);
    const db = new Database(join(dir, 'bridge.db'));
    try {
      const identity = JSON.stringify(['claude', 4242, new Date().toISOString(), '/work/late-project', 'claude-job-feed0002']);
      db.prepare('INSERT INTO peer_names (identity, name, session_id, agent, learned_at) VALUES (?, ?, ?, ?, ?)').run(identity, 'claude-job-feed0002', S2, 'claude', Date.now());
    } finally {
      db.close();
    }
    await ingest(env);
    // A transcript of a session bound before it was ever seen.
    transcript(claudeRoot(), S3, 'earlybindingheron');
    await ingest(env);
  });

  it('tags a captured transcript and its native child with a job bound later through jobs.json', () => {
    withHistory(dir, (db) => {
      const jobs = db.prepare("SELECT id, job FROM conversations WHERE session = ? AND id LIKE 'claude:%' ORDER BY id").all(S1) as Array<{ id: string; job: string }>;
      assert.deepEqual(jobs, [
        { id: `claude:${S1}`, job: 'claude-job-feed0001' },
        { id: `claude:${S1}:native:${A1}`, job: 'claude-job-feed0001' },
      ]);
      assert.deepEqual(db.prepare('SELECT job FROM conversation_bindings WHERE session = ? AND agent = ?').pluck().all(S1, 'claude'), ['claude-job-feed0001']);
      assert.equal(db.prepare('SELECT session FROM history_sessions WHERE alias = ?').pluck().get('claude-job-feed0001'), S1);
    });
  });

  it('tags a transcript with the job a job peer\'s name binds its session to', () => {
    withHistory(dir, (db) => {
      assert.equal(db.prepare('SELECT job FROM conversations WHERE id = ?').pluck().get(`claude:${S2}`), 'claude-job-feed0002');
      assert.deepEqual(db.prepare('SELECT session, job FROM history_sessions WHERE alias = ?').get('claude-job-feed0002'), { session: S2, job: 'claude-job-feed0002' });
    });
  });

  it('gives a transcript captured after its binding the job at once', () => {
    withHistory(dir, (db) => {
      assert.equal(db.prepare('SELECT job FROM conversations WHERE id = ?').pluck().get(`claude:${S3}`), 'claude-job-feed0003');
      const doc = db
        .prepare(`SELECT c.job FROM history_fts f JOIN history_document_refs r ON r.doc = f.rowid JOIN conversations c ON c.rowid = r.conversation WHERE history_fts MATCH '"earlybindingheron"'`)
        .pluck()
        .all();
      assert.deepEqual(doc, ['claude-job-feed0003']);
    });
  });
});
