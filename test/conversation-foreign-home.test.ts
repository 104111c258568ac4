// foreignHome marks records conclusively identified as fixture data of
// another (test) bridge home, and nothing else.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isForeignHome } from '../src/store/foreign-home.ts';

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

test('marked: nested test-home sources, fixture senders, job snapshots working in a test home', () => {
  assert.equal(isForeignHome('/repo/.agent-bridge-test/run-1/home/.claude/projects/x/s.jsonl', Buffer.from('{}')), true);
  assert.equal(isForeignHome('C:\\repo\\.agent-bridge-test\\run-2\\home\\.codex\\sessions\\r.jsonl', Buffer.from('')), true);
  for (const sender of ['owner-smoke-main', 'claude-e2e', 'codex-e2e', 'antigravity-e2e']) {
    assert.equal(isForeignHome('messages:m1:peer', json({ id: 'm1', from_name: sender, body: 'hi' })), true, sender);
  }
  assert.equal(isForeignHome('messages:m2:peer', json({ id: 'm2', from_id: 'codex-e2e', from_name: 'x' })), true);
  assert.equal(isForeignHome('job-snapshot:j:abc', json({ name: 'j', workdir: '/tmp/.agent-bridge-test/t/home' })), true);
});

test('not marked: real records, unknown provenance, look-alikes outside bridge records', () => {
  assert.equal(isForeignHome('/home/me/.claude/projects/x/s.jsonl', json({ from_name: 'owner-smoke-main' })), false, 'transcripts are never judged by content');
  assert.equal(isForeignHome('messages:m3:peer', json({ from_name: 'claude-orchard' })), false);
  assert.equal(isForeignHome('messages:m4:peer', Buffer.from('not json')), false);
  assert.equal(isForeignHome('job-snapshot:j:abc', json({ workdir: '/home/me/work/.agent-bridge-testing/home' })), false);
  assert.equal(isForeignHome('/home/me/agent-bridge-test/x/home/s.jsonl', Buffer.from('')), false);
});
