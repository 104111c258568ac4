// The parser pool on real worker threads. piscina require()s its entry file
// before it tries import(); the entry is CommonJS so that require() never
// loads an ES module graph (Node 20.20 can abort the process there, see
// actors/parser-entry.cjs). Several threads start at once and parse real
// Claude Code lines; the bytes come back (transferred) with the derived text
// (packed in a buffer of its own, protocols/segment-texts.ts).

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PARSER_ENTRY, ParserPool } from '../actors/parser-pool.ts';
import type { ParseTask } from '../protocols/records.ts';
import { segmentTexts } from '../protocols/segment-texts.ts';

test('the entry piscina loads is CommonJS and exports the handler', () => {
  const path = fileURLToPath(PARSER_ENTRY);
  assert.ok(path.endsWith('.cjs'), path);
  const required = createRequire(import.meta.url)(path) as unknown;
  assert.equal(typeof required, 'function', 'require() gives the handler itself, not an ES module namespace');
});

test('threads starting together each parse their chunks', async () => {
  const pool = new ParserPool(3);
  try {
    const session = '3f0c9a52-0d8e-4d7b-9a0e-3f0f1b2c4d5e';
    const tasks = Array.from({ length: 12 }, (_, i): ParseTask => {
      const line = JSON.stringify({ type: 'user', sessionId: session, cwd: '/home/dev/app', uuid: `u${i}`, timestamp: '2026-11-30T10:00:00.000Z', message: { role: 'user', content: `poolword${i} héllo 日本語` } });
      return { format: 'claude', bytes: new TextEncoder().encode(`${line}\n`), offset: 0, startsMidLine: false, carry: '', continues: false, context: { conversation: `claude:${session}`, session, ownAgentId: null } };
    });
    const sizes = tasks.map((t) => t.bytes.length);
    const results = await Promise.all(tasks.map((t) => pool.parse(t)));
    results.forEach((result, i) => {
      assert.equal(result.bytes.length, sizes[i], 'the chunk comes back whole');
      const texts = segmentTexts(result).map((t) => Buffer.from(t).toString('utf8'));
      assert.ok(texts.some((t) => t.includes(`poolword${i} héllo 日本語`)), `chunk ${i}: its text is derived`);
      assert.equal(result.texts.byteOffset, 0, 'the texts come in a buffer of their own');
      assert.equal(result.texts.buffer.byteLength, result.texts.byteLength, 'the texts come in a buffer of their own');
    });
  } finally {
    await pool.stop();
  }
});
