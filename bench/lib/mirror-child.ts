// Child process of bench/mirror.ts: one whole `ingest --once` run through
// HistoryService on the corpus, with its bridge home the physical default
// one (<corpus>/.agent-bridge, HOME = the corpus), so replicas go into the
// projects' own folders with their Git exclusion, exactly as for a user.
// Every writer batch and every mirror step is timed in the worker
// (instrument-mirror-worker.ts).
// Usage: node --import tsx bench/lib/mirror-child.ts --corpus DIR --mirrors on|off --pace max|spec --out FILE

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BroadcastChannel } from 'node:worker_threads';
import type { MirrorStatus } from '../../protocols/mirror.ts';
import type { Pace } from '../../protocols/service.ts';
import { BENCH_CHANNEL, type CommitSample, type MirrorStepSample } from './instrument-worker-channel.ts';
import { instrumentedHistoryService } from './instrumented-service.ts';

export interface MirrorRunResult {
  readonly mirrors: boolean;
  readonly pace: Pace;
  readonly elapsedMs: number;
  readonly rawBytes: number;
  readonly records: number;
  /** [ms since start, commit ms, raw bytes] per writer batch. */
  readonly commits: ReadonlyArray<readonly [number, number, number]>;
  /** [ms since start, sync ms, wall ms, records copied, ids checked] per mirror step. */
  readonly steps: ReadonlyArray<readonly [number, number, number, number, number]>;
  readonly mirror: MirrorStatus | null;
}

const { values } = parseArgs({ options: { corpus: { type: 'string' }, mirrors: { type: 'string' }, pace: { type: 'string' }, out: { type: 'string' } }, strict: true });
if (values.corpus === undefined || values.out === undefined) throw new Error('--corpus and --out are required');
const corpus = values.corpus;
const mirrors = values.mirrors !== 'off';
const pace = (values.pace ?? 'max') as Pace;

const HistoryService = await instrumentedHistoryService(new URL('./instrument-mirror-worker.ts', import.meta.url).href);
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !['AGENT_BRIDGE_HOME', 'OPENCODE_DB', 'AGENT_BRIDGE_HISTORY_MIRRORS'].includes(k)) env[k] = v;
Object.assign(env, { HOME: corpus, CLAUDE_CONFIG_DIR: join(corpus, '.claude'), CODEX_HOME: join(corpus, '.codex'), XDG_DATA_HOME: join(corpus, '.local/share') });
if (!mirrors) env.AGENT_BRIDGE_HISTORY_MIRRORS = 'off';

const commits: Array<readonly [number, number, number]> = [];
const steps: Array<readonly [number, number, number, number, number]> = [];
const start = performance.timeOrigin + performance.now();
const channel = new BroadcastChannel(BENCH_CHANNEL);
channel.onmessage = (event: unknown) => {
  const data = (event as { data: CommitSample | MirrorStepSample | { kind: 'worker' } }).data;
  if (data.kind === 'commit') commits.push([Math.round(data.at - start), Number(data.ms.toFixed(3)), data.rawBytes]);
  else if (data.kind === 'mirror') steps.push([Math.round(data.at - start), Number(data.syncMs.toFixed(3)), Number(data.wallMs.toFixed(3)), data.copied, data.checked]);
};
const service = new HistoryService({ mode: 'once', pace, env });
await service.start();
const progress = setInterval(() => {
  service
    .status()
    .then((s) => process.stderr.write(`  [mirrors ${mirrors ? 'on' : 'off'}] ${((performance.timeOrigin + performance.now() - start) / 1000).toFixed(0)} s: ${s.counts.records} records, ${commits.length} batches, ${steps.length} mirror steps, ${s.mirror.steps.records} copied\n`))
    .catch(() => undefined);
}, 15_000);
const summary = await service.finished();
const elapsedMs = performance.timeOrigin + performance.now() - start;
clearInterval(progress);
await service.stop();
await new Promise((r) => setTimeout(r, 200)); // the last samples
channel.close();
const result: MirrorRunResult = { mirrors, pace, elapsedMs, rawBytes: summary.rawBytes, records: summary.records, commits, steps, mirror: summary.status.mirror };
writeFileSync(values.out, JSON.stringify(result));
process.exit(0);
