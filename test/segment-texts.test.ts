// The parser pool hands segments over with their texts packed in one UTF-8
// buffer (protocols/segment-texts.ts); the writer thread binds views on it to
// SQLite as text. These tests check that SQLite stores exactly the bytes it
// stored when every text came as a string (lone surrogates included: UTF-8
// cannot hold one, so such a text still travels as a string), that the
// buffer is its own (so it can be transferred), and that a commit transfers it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { commitTransfers } from '../protocols/history.ts';
import type { ParseResult, Segment } from '../protocols/records.ts';
import { packTexts, segmentTexts } from '../protocols/segment-texts.ts';
import { join } from 'node:path';
import { openWriter } from '../src/store/open.ts';
import { HistoryWriter } from '../src/store/writer.ts';
import { claudeLineChunk, claudePlan } from './helpers/commit-chunks.ts';
import { prng, tempDir } from './helpers/home.ts';

const PIECES = ['', 'a', 'word ', 'héllo', '日本語', '😀', 'tab\tnew\nline', '\u0000', '\uD800', '\uDC00x', 'z\uD83D', 'ß'.repeat(40)];

function randomText(random: () => number): string {
  let text = '';
  const parts = Math.floor(random() * 6);
  for (let i = 0; i < parts; i++) text += PIECES[Math.floor(random() * PIECES.length)];
  return text;
}

function segment(offset: number, text: string): Segment {
  return { offset, length: 10, continuation: false, route: null, text, at: offset % 2 === 0 ? null : offset, complete: true, facts: offset % 3 === 0 ? { kind: 'message' } : undefined };
}

function result(texts: readonly string[]): ParseResult {
  return { bytes: new Uint8Array(8), segments: texts.map((text, i) => segment(i * 10, text)), hints: { cwd: null, parent: null, links: [], malformed: 0 } };
}

test('SQLite stores the same bytes from packed texts as from the strings, for random texts', () => {
  const db = new Database(':memory:');
  try {
    db.exec('CREATE TABLE t (v TEXT)');
    const asString = db.prepare('INSERT INTO t VALUES (?) RETURNING typeof(v) AS type, CAST(v AS BLOB) AS bytes');
    const asPacked = db.prepare('INSERT INTO t VALUES (CAST(? AS TEXT)) RETURNING typeof(v) AS type, CAST(v AS BLOB) AS bytes');
    const random = prng(20261207);
    for (let round = 0; round < 300; round++) {
      const texts = Array.from({ length: Math.floor(random() * 12) }, () => randomText(random));
      const original = result(texts);
      const packed = packTexts(original);
      const wellFormed = texts.filter((t) => t.isWellFormed());
      assert.equal(packed.texts.byteLength, wellFormed.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0));
      assert.deepEqual(
        packed.segments.map((s) => s.illFormedText),
        texts.map((t) => (t.isWellFormed() ? undefined : t)),
        'only a text UTF-8 cannot hold travels as a string',
      );
      assert.deepEqual(
        packed.segments.map(({ textBytes: _bytes, illFormedText: _text, ...rest }) => rest),
        original.segments.map(({ text: _text, ...rest }) => rest),
        'everything else travels as it was',
      );
      const views = segmentTexts(packed);
      texts.forEach((text, i) => {
        const view = views[i] as string | Uint8Array;
        assert.equal(view.length === 0, text === '', 'an empty text stays empty (no document)');
        assert.deepEqual(asPacked.get(view), asString.get(text), `text ${JSON.stringify(text)}`);
      });
    }
  } finally {
    db.close();
  }
});

test('a lone surrogate would be stored differently through UTF-8', () => {
  const db = new Database(':memory:');
  try {
    db.exec('CREATE TABLE t (v TEXT)');
    const stored = db.prepare('INSERT INTO t VALUES (CAST(? AS TEXT)) RETURNING CAST(v AS BLOB)').pluck();
    const lone = 'a\uD800b';
    assert.notDeepEqual(stored.get(Buffer.from(lone, 'utf8')), stored.get(lone), 'UTF-8 turns the surrogate into U+FFFD');
  } finally {
    db.close();
  }
});

test('the texts are a buffer of their own, which a commit transfers with the bytes', () => {
  const plan = claudePlan('5b2f6d8e-1c4a-4e7b-9f0d-2a3b4c5d6e7f');
  const chunk = claudeLineChunk(plan, 0, 'a line with text');
  assert.ok(chunk.texts.byteLength > 0);
  assert.equal(chunk.texts.buffer.byteLength, chunk.texts.byteLength, 'not a view on a shared pool');
  const transfers = commitTransfers({ type: 'commit', chunks: [chunk], rows: [] });
  assert.ok(transfers.includes(chunk.bytes.buffer as ArrayBuffer));
  assert.ok(transfers.includes(chunk.texts.buffer as ArrayBuffer));
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(chunk, transfers);
  assert.equal(chunk.texts.byteLength, 0, 'moved, not copied');
  port1.close();
  port2.close();
});

test('a chunk without text transfers no texts buffer', () => {
  const packed = packTexts(result(['', '']));
  assert.equal(packed.texts.byteLength, 0);
  const chunk = { ...claudeLineChunk(claudePlan('6c3a7e9f-2d5b-4f8c-8a1e-3b4c5d6e7f80'), 0, 'x'), segments: packed.segments, texts: packed.texts };
  assert.deepEqual(commitTransfers({ type: 'commit', chunks: [chunk], rows: [] }), [chunk.bytes.buffer]);
});

test('texts that do not add up to the buffer are refused', () => {
  const packed = packTexts(result(['abc', 'de']));
  assert.throws(() => segmentTexts({ segments: packed.segments, texts: packed.texts.subarray(0, 4) }), /name 5 bytes of text, the chunk has 4/);
});

test('the writer stores packed texts as text, in the documents and in the index', () => {
  const db = openWriter(join(tempDir(), 'history.db'));
  try {
    const writer = new HistoryWriter(db);
    const plan = claudePlan('7d4b8f0a-3e6c-4a9d-9b2f-4c5d6e7f8091');
    writer.register([plan]);
    // A line whose text the store keeps as a span (derived again from the bytes on reading: only the index gets it).
    const spanned = claudeLineChunk(plan, 0, 'packedword héllo 日本語');
    // A line whose text the store keeps as a body (its recipe dropped, as for a text no recipe describes).
    const next = claudeLineChunk(plan, spanned.bytes.length, 'storedword ünïcode');
    const stored = { ...next, segments: next.segments.map(({ recipe: _recipe, ...segment }) => segment) };
    // A line whose text has a lone surrogate (a JSON escape): it travels as a string.
    const lone = claudeLineChunk(plan, spanned.bytes.length + next.bytes.length, 'loneword \uD800 end');
    assert.ok(lone.segments.some((s) => s.illFormedText !== undefined));
    writer.commit([spanned]);
    writer.commit([stored]);
    writer.commit([lone]);
    assert.equal(db.prepare("SELECT count(*) FROM history_documents WHERE typeof(body) <> 'text'").pluck().get(), 0);
    assert.deepEqual(db.prepare("SELECT body FROM history_documents WHERE body <> ''").pluck().all(), ['storedword ünïcode']);
    for (const word of ['packedword', '日本語', 'storedword', 'ünïcode', 'loneword', 'end']) {
      assert.equal(db.prepare('SELECT count(*) FROM history_fts WHERE history_fts MATCH ?').pluck().get(`"${word}"`), 1, word);
    }
    db.exec("INSERT INTO history_fts (history_fts, rank) VALUES ('integrity-check', 1)");
  } finally {
    db.close();
  }
});
