// A child for test/heap-growth.test.ts: optionally starts a service thread
// (as the CLI, the dashboard and the broker do), then keeps about 20 MiB
// live while batches of strings live long enough to reach the old
// generation and die, and prints the largest total heap it saw.
//
//   node [--heap-growing-percent=N] --import tsx test/scripts/heap-churn.ts spawn|none

import { getHeapStatistics } from 'node:v8';
import { spawnThread } from '../../src/service/threads.ts';

if (process.argv[2] === 'spawn') await spawnThread('actors/reader-worker.ts', 'heap-churn-reader').terminate();

const live: string[] = [];
for (let i = 0; i < 200_000; i++) live.push(`record ${i} ${'x'.repeat(64)}`);
const ring: Array<string[] | null> = new Array<string[] | null>(16).fill(null);
let peak = 0;
for (let round = 0; round < 600; round++) {
  const batch: string[] = [];
  for (let i = 0; i < 5_000; i++) batch.push(`garbage ${round} ${i} ${'y'.repeat(100)}`);
  ring[round % ring.length] = batch;
  peak = Math.max(peak, getHeapStatistics().total_heap_size);
}
process.stdout.write(`${JSON.stringify({ peakBytes: peak, live: live.length })}\n`);
