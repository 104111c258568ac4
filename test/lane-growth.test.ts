// A lane that opens on a file still being written (the file grows after the
// stat that found it) must learn the file's new size as it reads past the
// old one, not only at the end: the cursor it hands on carries that size, and
// the status counts the backlog from it. Real files, the real parser.

import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseChunk } from '../actors/parser-actor.ts';
import { packTexts } from '../protocols/segment-texts.ts';
import { Lane, type LaneDeps, type ReadyChunk } from '../src/ingest/lane.ts';
import { EMPTY_CURSOR } from '../src/store/source-rows.ts';
import { tempDir } from './helpers/home.ts';

const CHUNK = 64 * 1024;

function lines(from: number, count: number): string {
  let out = '';
  for (let i = from; i < from + count; i++) out += `${JSON.stringify({ type: 'user', sessionId: 's1', message: { role: 'user', content: `growing line ${i} ${'x'.repeat(200)}` } })}\n`;
  return out;
}

const deps: LaneDeps = {
  chunkBytes: CHUNK,
  readAhead: 2,
  parse: async (task) => packTexts(parseChunk(task)),
  settled: () => true,
  retained: () => [],
  spanAt: () => undefined,
  retainedBytes: () => null,
  spotChecks: 0,
  spotCheckBytes: 0,
};

describe('a lane on a growing file', () => {
  it('knows the grown size from the first chunk read past the size it opened with', async () => {
    const path = join(tempDir('abh-lane-'), 's1.jsonl');
    writeFileSync(path, lines(0, 400)); // about 90 KiB: the lane opens knowing this much
    const lane = await Lane.open({ id: path, path, format: 'claude', context: { conversation: 'claude:s1', session: 's1', ownAgentId: null }, cursor: { ...EMPTY_CURSOR } }, deps);
    const openedWith = lane.remaining;
    appendFileSync(path, lines(400, 4000)); // grows to about 1 MiB before the lane reads
    const grown = openedWith + Buffer.byteLength(lines(400, 4000));
    const chunks: ReadyChunk[] = [];
    for (let chunk = await lane.take(); chunk !== null; chunk = await lane.take()) chunks.push(chunk);
    await lane.close();
    assert.ok(chunks.length > 10, `read in ${chunks.length} chunks`);
    const crossing = chunks.findIndex((c) => c.offset + CHUNK > openedWith);
    assert.ok(crossing >= 0 && crossing < chunks.length - 2, 'a chunk reads past the first size well before the end');
    for (const [i, chunk] of chunks.entries()) {
      if (i >= crossing) assert.equal(chunk.after.size, grown, `chunk ${i} at ${chunk.offset} carries the grown size`);
      else assert.equal(chunk.after.size, openedWith, `chunk ${i} carries the size it opened with`);
    }
    const last = chunks[chunks.length - 1] as ReadyChunk;
    assert.equal(last.offset + last.result.bytes.length, grown, 'every byte read');
  });
});
