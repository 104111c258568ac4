// The pure pieces of bridge capture: capability blanking, report detection,
// run file names, the approval hold-back, and what makes two observations of
// a message the same version.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOLD_BACK_BYTES } from '../protocols/records.ts';
import { blankCapability, holdsCapability } from '../src/bridge/files/capability.ts';
import { parseRunName } from '../src/bridge/files/runs.ts';
import { envelopeRaw, messageFingerprint, reportOf, retainedFingerprint, rowRaw } from '../src/bridge/messages.ts';
import { generationFor } from '../src/bridge/versions.ts';
import { cutChunk } from '../src/sources/chunker.ts';

const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

describe('approval capability blanking', () => {
  it('blanks the trailing pid, port and token with spaces of the same length, keeping valid JSON', () => {
    const request = { id: 'a', job: 'codex-job-1', command: 'rm -rf tmp ✓', askedAt: 1, pid: 31337, port: 50123, token: 'f'.repeat(48) };
    const raw = bytes(JSON.stringify(request));
    const length = raw.length;
    assert.equal(blankCapability(raw), 3);
    assert.equal(raw.length, length);
    assert.deepEqual(JSON.parse(text(raw)), { id: 'a', job: 'codex-job-1', command: 'rm -rf tmp ✓', askedAt: 1 });
    assert.ok(!holdsCapability(raw));
    assert.equal(blankCapability(raw), 0, 'idempotent');
  });

  it('blanks capability members in any position, and leaves quoted look-alikes in strings alone', () => {
    const raw = bytes('{"token":"abc","id":"x","nested":{"port":1,"pid":2},"command":"echo \\"token\\": 1"}');
    blankCapability(raw);
    assert.deepEqual(JSON.parse(text(raw)), { id: 'x', nested: {}, command: 'echo "token": 1' });
  });

  it('keeps the last KiB of an approval for the final chunk', () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    assert.equal(cutChunk({ bytes: chunk, atEof: false, settled: true, document: true, holdBack: HOLD_BACK_BYTES }), 64 * 1024 - HOLD_BACK_BYTES);
    assert.equal(cutChunk({ bytes: chunk.subarray(0, 2000), atEof: true, settled: true, document: true, holdBack: HOLD_BACK_BYTES }), 2000);
  });
});

describe('job reports', () => {
  it('take job and agent from the first sentence, done or failed, with or without a model', () => {
    assert.deepEqual(reportOf('Subagent claude-job-d48e4795 (claude) done after 102s. Follow up…\n\nanswer'), { job: 'claude-job-d48e4795', agent: 'claude' });
    assert.deepEqual(reportOf('Subagent codex-job-1 (codex, model gpt-5.1-codex) failed after 7s.\n\nCause: x'), { job: 'codex-job-1', agent: 'codex' });
    assert.deepEqual(reportOf('Subagent ag-job-1 (antigravity) done after 1s.'), { job: 'ag-job-1', agent: 'other' });
    assert.equal(reportOf('FYI: Subagent codex-job-1 (codex) done after 7s.'), null);
    assert.equal(reportOf('Subagent codex-job-1 (codex) done.'), null);
  });
});

describe('run file names', () => {
  it('accepts .log/.json with or without a rotation suffix, never .log.1', () => {
    assert.deepEqual(parseRunName('2026-03-13-08-43-56-claude-job-d48e4795.log'), { run: '2026-03-13-08-43-56-claude-job-d48e4795', kind: 'log', job: 'claude-job-d48e4795' });
    assert.deepEqual(parseRunName('2026-01-29-08-32-35-opencode-job-1.json-1772353955001-6e3a908f-429f'), { run: '2026-01-29-08-32-35-opencode-job-1', kind: 'json', job: 'opencode-job-1' });
    assert.equal(parseRunName('2026-03-13-08-43-56-claude-job-d48e4795.log.1'), null);
    assert.equal(parseRunName('notes.txt'), null);
  });
});

describe('message versions', () => {
  const row = { id: 'm1', recipient: 'codex-orchard', from_id: 'p', from_name: 'claude-orchard', from_agent: 'claude', to_target: 'codex-orchard', conversation_id: 'c', reply_to: null, hop: 0, body: 'hi', created_at: 5, read_at: null };

  it('an archived copy of a retained version is the same version; a read row is a new one', () => {
    const envelope = envelopeRaw(row, row.recipient);
    const archived = rowRaw({ n: 9, ...row, archive_reason: 'expired', archived_at: 7 });
    assert.equal(retainedFingerprint('messages:m1:codex-orchard', archived), retainedFingerprint('messages:m1:codex-orchard', envelope));
    const read = { ...row, read_at: 6 };
    assert.notEqual(messageFingerprint(read, row.recipient), messageFingerprint(row, row.recipient));
    const known = [{ generation: 0, fingerprint: messageFingerprint(row, row.recipient), raw: envelope }];
    assert.equal(generationFor(known, messageFingerprint(row, row.recipient), envelope), null);
    assert.equal(generationFor(known, messageFingerprint(read, row.recipient), envelopeRaw(read, row.recipient)), 1);
    assert.equal(generationFor([], messageFingerprint(row, row.recipient), envelope), 0);
  });

  it('a claimed queue key is its own version key', () => {
    assert.notEqual(messageFingerprint(row, 'agent:codex'), messageFingerprint(row, 'codex-orchard'));
  });
});
