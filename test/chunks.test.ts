// Property tests for chunking and segmenting: for random UTF-8 text with
// random line lengths (including lines far longer than a read), reading with
// random read sizes and cutting with cutChunk must tile the input exactly,
// never end a chunk inside a UTF-8 sequence (except at end of file), end at a
// newline whenever the read held one, and segment every chunk completely.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claudeDecoder } from '../src/sources/claude.ts';
import { cutChunk, utf8Boundary } from '../src/sources/chunker.ts';
import { parseJsonlChunk } from '../src/sources/jsonl.ts';
import { prng } from './helpers/home.ts';

const ALPHABET = ['a', 'b', 'z', ' ', 'é', 'ß', 'Ω', '東', 'タ', '🚀', '👩‍💻', '"', '\\'];

function randomText(random: () => number, lines: number): Buffer {
  let out = '';
  for (let i = 0; i < lines; i++) {
    const long = random() < 0.1;
    const length = long ? 200 + Math.floor(random() * 2000) : Math.floor(random() * 80);
    let text = '';
    for (let k = 0; k < length; k++) text += ALPHABET[Math.floor(random() * ALPHABET.length)];
    out += JSON.stringify({ type: 'user', message: { content: text }, n: i });
    if (i < lines - 1 || random() < 0.5) out += '\n';
  }
  return Buffer.from(out, 'utf8');
}

describe('chunking', () => {
  it('utf8Boundary never cuts a code point, for every prefix of multi-byte text', () => {
    const bytes = Buffer.from('aé東🚀b👩‍💻', 'utf8');
    for (let n = 0; n <= bytes.length; n++) {
      const cut = utf8Boundary(bytes.subarray(0, n));
      assert.ok(cut <= n);
      assert.equal(Buffer.from(bytes.subarray(0, cut).toString('utf8'), 'utf8').equals(bytes.subarray(0, cut)), true, `prefix ${n} cut at ${cut}`);
      if (cut < n) assert.ok(n - cut < 4, 'only an unfinished sequence is held back');
    }
  });

  for (let seed = 1; seed <= 40; seed++) {
    it(`tiles random text exactly (seed ${seed})`, () => {
      const random = prng(seed);
      const input = randomText(random, 30 + Math.floor(random() * 60));
      const readSize = 16 + Math.floor(random() * 700);
      const chunks: Buffer[] = [];
      let offset = 0;
      let midLine = false;
      while (offset < input.length) {
        const read = input.subarray(offset, offset + readSize);
        const atEof = offset + read.length >= input.length;
        const length = cutChunk({ bytes: read, atEof, settled: true });
        assert.ok(length > 0 && length <= read.length, 'progress within the read');
        const chunk = read.subarray(0, length);
        if (read.includes(10)) assert.equal(chunk[chunk.length - 1], 10, 'ends at the last newline of the read');
        else if (!atEof) assert.equal(utf8Boundary(chunk), chunk.length, 'never inside a UTF-8 sequence');

        const result = parseJsonlChunk(
          { format: 'claude', bytes: new Uint8Array(chunk), offset, startsMidLine: midLine, carry: '', continues: !atEof, context: { conversation: 'claude:s', session: 's', ownAgentId: null } },
          claudeDecoder,
        );
        let covered = offset;
        for (const [i, segment] of result.segments.entries()) {
          assert.equal(segment.offset, covered, 'segments are contiguous');
          assert.equal(segment.continuation, i === 0 && midLine, 'only the first segment of a mid-line chunk continues a line');
          covered += segment.length;
        }
        assert.equal(covered, offset + length, 'segments cover the chunk');
        chunks.push(chunk);
        midLine = chunk[chunk.length - 1] !== 10;
        offset += length;
      }
      assert.deepEqual(Buffer.concat(chunks), input);
    });
  }

  it('waits for an unfinished last line until the file settles', () => {
    const bytes = Buffer.from('{"a":1}\n{"b":');
    assert.equal(cutChunk({ bytes, atEof: true, settled: false }), 8, 'complete lines only');
    assert.equal(cutChunk({ bytes: bytes.subarray(8), atEof: true, settled: false }), 0, 'nothing yet');
    assert.equal(cutChunk({ bytes: bytes.subarray(8), atEof: true, settled: true }), 5, 'settled: the bytes as they are');
  });
});
