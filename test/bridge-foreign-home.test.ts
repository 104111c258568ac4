// foreignHome: on a generated v8 home captured from an empty history.db, to
// which the test adds what the specification lists (messages from the
// owner-smoke-main and bundled e2e senders, a job working in a nested test
// home, a transcript inside a nested test home) and look-alikes that must
// stay unmarked, isForeignHome flags exactly those records and none of the
// fixture's.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { isForeignHome } from '../src/store/foreign-home.ts';
import { bridgeEnv, generateBridgeHome, ingest, prepareHistory, withHistory } from './helpers/bridge.ts';

const FOREIGN_SENDERS = ['owner-smoke-main', 'claude-e2e', 'codex-e2e', 'antigravity-e2e'];

function claudeTranscript(root: string, session: string, text: string): string {
  const dir = join(root, 'projects', '-repo');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${session}.jsonl`);
  writeFileSync(path, `${JSON.stringify({ type: 'user', sessionId: session, cwd: '/repo', uuid: randomUUID(), timestamp: new Date().toISOString(), message: { role: 'user', content: text } })}\n`);
  return path;
}

describe('foreignHome marks exactly the records the specification lists', () => {
  let dir: string;
  const expected = new Set<string>();

  before(async () => {
    ({ dir } = generateBridgeHome());
    prepareHistory(dir);
    const db = new Database(join(dir, 'bridge.db'));
    try {
      const send = db.prepare(
        "INSERT INTO messages (id, recipient, from_id, from_name, from_agent, to_target, conversation_id, reply_to, hop, body, created_at, read_at) VALUES (?, 'claude-orchard', ?, ?, ?, 'claude-orchard', ?, NULL, 0, ?, ?, NULL)",
      );
      for (const sender of FOREIGN_SENDERS) {
        const id = randomUUID();
        send.run(id, randomUUID(), sender, sender === 'owner-smoke-main' ? 'other' : sender.replace('-e2e', ''), randomUUID(), `hello from ${sender}`, Date.now());
        expected.add(`messages:${id}:claude-orchard`);
      }
      // Look-alikes: a sender whose name only contains e2e, a body that quotes a fixture sender.
      send.run(randomUUID(), randomUUID(), 'claude-e2e-review', 'claude', randomUUID(), 'not a fixture', Date.now());
      send.run(randomUUID(), randomUUID(), 'claude-orchard', 'claude', randomUUID(), '"from_name":"claude-e2e" quoted', Date.now());
    } finally {
      db.close();
    }
    const jobs = JSON.parse(readFileSync(join(dir, 'jobs.json'), 'utf8')) as { jobs: unknown[] };
    jobs.jobs.push(
      { id: 'e2e00001', name: 'codex-job-e2e00001', agent: 'codex', status: 'done', workdir: '/tmp/repo/.agent-bridge-test/run-7/home', prompt: 'smoke' },
      { id: 'e2e00002', name: 'codex-job-e2e00002', agent: 'codex', status: 'done', workdir: '/home/me/.agent-bridge-testing/home', prompt: 'real' },
    );
    writeFileSync(join(dir, 'jobs.json'), `${JSON.stringify(jobs, null, 2)}\n`);
    const outer = join(dir, '..');
    const nested = claudeTranscript(join(outer, 'repo', '.agent-bridge-test', 'run-3', 'home', '.claude'), randomUUID(), 'nested home transcript');
    claudeTranscript(join(outer, 'repo', 'agent-bridge-test', 'run-4', 'home', '.claude'), randomUUID(), 'look-alike path');
    expected.add(nested);
    const roots = [join(outer, 'repo', '.agent-bridge-test', 'run-3', 'home', '.claude'), join(outer, 'repo', 'agent-bridge-test', 'run-4', 'home', '.claude')].join(',');
    await ingest(bridgeEnv(dir, { CLAUDE_CONFIG_DIR: roots }));
  });

  it('flags the fixture senders, the test-home job and the nested-home transcript, and nothing else', () => {
    withHistory(dir, (db) => {
      const records = db.prepare('SELECT source, raw FROM conversation_records').all() as Array<{ source: string; raw: Buffer }>;
      const jobSources = records.filter((r) => r.source.startsWith('job-snapshot:codex-job-e2e00001:')).map((r) => r.source);
      assert.equal(jobSources.length, 1);
      expected.add(jobSources[0] as string);
      const flagged = new Set(records.filter((r) => isForeignHome(r.source, r.raw)).map((r) => r.source));
      assert.deepEqual([...flagged].sort(), [...expected].sort());
      assert.ok(records.length > flagged.size + 40, 'the fixture\'s own records are all there, unflagged');
    });
  });
});
