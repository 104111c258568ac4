// Entry of the writer thread under the bench (installed by
// bench/lib/instrument-worker.ts): times every `commit` message to the
// history actor (the same span the scheduler's latency window measures, but
// every sample, not the last 1000) and every `mergeIndex` message (the FTS5
// merge steps between batches), samples this thread's event-loop
// utilization, CPU and heap every second, then imports the real entry,
// actors/writer-worker.ts. Nothing of the product's behaviour changes.

import { readFileSync } from 'node:fs';
import { BroadcastChannel, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { HistoryActor } from '../../actors/history-actor.ts';
import type { CommitResult, HistoryMessage } from '../../protocols/history.ts';
import { BENCH_CHANNEL, sampleThread, threadTimes, type CommitSample, type MergeSample } from './instrument-worker-channel.ts';

const times = (): { cpuMs: number; queueMs: number } => threadTimes((path) => readFileSync(path, 'utf8'));

const channel = new BroadcastChannel(BENCH_CHANNEL);
channel.unref();

const originalHandle = HistoryActor.prototype.handle;

/** Handle `message` with the product's actor, timing it: wall, and this thread's CPU and run-queue wait. */
function timedHandle(actor: HistoryActor, message: HistoryMessage): { result: unknown; started: number; ms: number; cpuMs: number; queueMs: number } {
  const before = times();
  const started = performance.now();
  const result = originalHandle.call(actor, message);
  const ms = performance.now() - started;
  const after = times();
  return { result, started, ms, cpuMs: after.cpuMs - before.cpuMs, queueMs: after.queueMs - before.queueMs };
}

HistoryActor.prototype.handle = function handle(this: HistoryActor, message: HistoryMessage) {
  if (message.type === 'mergeIndex') {
    const { result, ms, cpuMs } = timedHandle(this, message);
    const sample: MergeSample = { kind: 'merge', ms, cpuMs };
    channel.postMessage(sample);
    return result;
  }
  if (message.type !== 'commit') return originalHandle.call(this, message);
  const timing = timedHandle(this, message);
  const result = timing.result as CommitResult;
  let rawBytes = 0;
  let maxChunkBytes = 0;
  for (const chunk of message.chunks) {
    rawBytes += chunk.bytes.length;
    maxChunkBytes = Math.max(maxChunkBytes, chunk.bytes.length);
  }
  const sample: CommitSample = {
    kind: 'commit',
    at: performance.timeOrigin + timing.started,
    ms: timing.ms,
    cpuMs: timing.cpuMs,
    queueMs: timing.queueMs,
    chunks: message.chunks.length,
    sources: [...new Set(message.chunks.map((chunk) => chunk.source))],
    maxChunkBytes,
    rawBytes,
    records: result.records,
    documents: result.documents,
    bodyBytes: result.bodyBytes,
  };
  channel.postMessage(sample);
  return result;
} as typeof originalHandle;

sampleThread(channel, 'writer');

await import((workerData as { realEntry: string }).realEntry);
