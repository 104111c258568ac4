// Entry of the history worker thread under bench/mirror.ts: times every
// mirror step (its synchronous check and copy units, which hold the worker
// thread, and its whole span including Git in child processes), then
// installs the wrappers of instrument-worker.ts (commit timing in the writer
// thread), which starts the real worker. Samples go to the bench's main thread over the bench channel.

import { BroadcastChannel } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { MirrorSync } from '../../src/mirror/mirror-sync.ts';
import { ProjectSync } from '../../src/mirror/project-sync.ts';
import { BENCH_CHANNEL, type MirrorStepSample } from './instrument-worker-channel.ts';

const channel = new BroadcastChannel(BENCH_CHANNEL);
channel.unref();
let syncMs = 0;

for (const name of ['check', 'copy'] as const) {
  const original = ProjectSync.prototype[name] as (this: ProjectSync, ...args: unknown[]) => number;
  (ProjectSync.prototype as unknown as Record<string, unknown>)[name] = function timed(this: ProjectSync, ...args: unknown[]): number {
    const started = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      syncMs += performance.now() - started;
    }
  };
}

const originalStep = MirrorSync.prototype.step;
MirrorSync.prototype.step = async function step(this: MirrorSync) {
  syncMs = 0;
  const started = performance.now();
  const result = await originalStep.call(this);
  const sample: MirrorStepSample = { kind: 'mirror', at: performance.timeOrigin + started, syncMs, wallMs: performance.now() - started, copied: result.copied, checked: result.checked };
  channel.postMessage(sample);
  return result;
};

await import('./instrument-worker.ts');
