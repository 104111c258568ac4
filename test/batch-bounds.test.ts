// The specification's bounds on a capture batch, seen where batches arrive:
// in the writer thread (through the bench's instrumented entries, which time
// and describe every commit and change nothing else). "Each source chunk is
// at most 64 KiB; two file sources run per batch." And a source that has had
// its turn (LIMITS.sourceTurnBatches) yields to a source waiting, which then
// has a turn of its own.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BroadcastChannel } from 'node:worker_threads';
import { BENCH_CHANNEL, type CommitSample } from '../bench/lib/instrument-worker-channel.ts';
import { instrumentedHistoryService } from '../bench/lib/instrumented-service.ts';
import { LIMITS } from '../src/config/limits.ts';
import { envFor, prng, tempDir } from './helpers/home.ts';
import { withStore } from './helpers/store.ts';
import { waitFor } from './helpers/wait.ts';

const MiB = 1024 * 1024;

/** Claude transcripts of about `bytes` each, lines of about 2 KiB. */
function writeTranscripts(home: string, count: number, bytes: number): string[] {
  const next = prng(0xba7c);
  const dir = join(home, '.claude', 'projects', '-work-bounds');
  mkdirSync(dir, { recursive: true });
  const words = ['quarry', 'lantern', 'ferry', 'thimble', 'saddle', 'orbit', 'walnut', 'ember'];
  const paths: string[] = [];
  for (let f = 0; f < count; f++) {
    const session = `00000000-0000-4000-8000-0000000000b${f}`;
    const lines: string[] = [];
    for (let i = 0, size = 0; size < bytes; i++) {
      const content = Array.from({ length: 200 }, () => `${words[Math.floor(next() * words.length)]}${Math.floor(next() * 1000)}`).join(' ');
      const line = `${JSON.stringify({ type: 'user', message: { role: 'user', content }, cwd: '/work/bounds', sessionId: session, uuid: `b-${f}-${i}`, timestamp: '2026-11-02T09:00:00.000Z' })}\n`;
      lines.push(line);
      size += line.length;
    }
    const path = join(dir, `${session}.jsonl`);
    writeFileSync(path, lines.join(''));
    paths.push(path);
  }
  return paths;
}

describe('capture batches', () => {
  it('take at most two sources and 64 KiB chunks, and a third source gets its turn before the first two finish', async () => {
    const home = tempDir('ab-bounds-');
    // Each file lasts more than two turns: beside another source, a batch takes about two chunks (128 KiB) of it.
    const files = writeTranscripts(home, 3, 10 * MiB);
    const HistoryService = await instrumentedHistoryService(new URL('../bench/lib/instrument-worker.ts', import.meta.url).href);
    const commits: CommitSample[] = [];
    const channel = new BroadcastChannel(BENCH_CHANNEL);
    channel.onmessage = (event: unknown) => {
      const data = (event as { data: { kind: string } }).data;
      if (data.kind === 'commit') commits.push(data as CommitSample);
    };
    try {
      const service = new HistoryService({ env: envFor(home), mode: 'once', pace: 'max' });
      await service.start();
      let batches: number;
      try {
        batches = (await service.finished()).batches;
      } finally {
        await service.stop();
      }
      // A commit's sample is posted before its reply, but crosses another channel: the last ones may still be on the way.
      await waitFor(() => `${batches} commit samples (${commits.length} came)`, () => commits.length >= batches, { ms: 10_000, everyMs: 20 });
    } finally {
      channel.close();
    }

    const bySource = withStore(home, (db) => {
      const paths = new Map<string, string>();
      for (const row of db.prepare('SELECT id, path FROM conversation_sources').all() as Array<{ id: string; path: string }>) paths.set(row.id, row.path);
      return paths;
    });
    // Every byte of every file, once, in order.
    withStore(home, (db) => {
      for (const [id, path] of bySource) {
        const raws = db.prepare('SELECT raw FROM conversation_records WHERE source = ? ORDER BY generation, offset').pluck().all(id) as Buffer[];
        assert.ok(Buffer.concat(raws).equals(readFileSync(path)), `${path} is retained whole`);
      }
    });
    assert.deepEqual([...bySource.values()].sort(), [...files].sort());

    const fileCommits = commits.filter((c) => c.sources.length > 0);
    assert.ok(fileCommits.length >= 2 * LIMITS.sourceTurnBatches, `${fileCommits.length} batches of file chunks`);
    for (const [index, commit] of fileCommits.entries()) {
      assert.ok(commit.sources.length <= LIMITS.sourcesPerBatch, `batch ${index} took ${commit.sources.length} sources`);
      assert.ok(commit.maxChunkBytes <= LIMITS.chunkBytes, `batch ${index} holds a chunk of ${commit.maxChunkBytes} bytes`);
    }

    // Turns: three sources, two per batch, each about two turns long. The one that starts last starts once the
    // first two have had their turn, not when one of them is done; and until the first source is done, each
    // source is in a fair share of the batches (two in three when turns rotate; one who only ever got a batch
    // between two turns of the others would be in one in thirty).
    const first = new Map<string, number>();
    const last = new Map<string, number>();
    for (const [index, commit] of fileCommits.entries()) {
      for (const source of commit.sources) {
        if (!first.has(source)) first.set(source, index);
        last.set(source, index);
      }
    }
    assert.equal(first.size, 3);
    const starts = [...first.values()].sort((x, y) => x - y);
    assert.ok((starts[2] as number) <= LIMITS.sourceTurnBatches + 8, `the third source starts at batch ${starts[2]}, a turn is ${LIMITS.sourceTurnBatches}`);
    const firstDone = Math.min(...last.values());
    for (const source of first.keys()) {
      const share = fileCommits.slice(0, firstDone + 1).filter((c) => c.sources.includes(source)).length / (firstDone + 1);
      assert.ok(share >= 0.25, `${bySource.get(source)} is in ${(share * 100).toFixed(0)} % of the batches before batch ${firstDone}, when the first source is done`);
    }
  });
});
