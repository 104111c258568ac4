// Broker message latency during a large backfill (issue 6, "Broker
// integration": target p99 under 50 ms; the earlier implementation's bar was
// p95 under 1 s). A stand-in broker loop (bench/broker-loop.ts) sends and
// acknowledges messages in a generated 0.29.17 bridge home on the main
// thread, first alone (the same-run baseline), then while HistoryService
// backfills a make-corpus corpus in its worker at the given pace.
//   node --import tsx bench/broker-load.ts [--bytes 256MiB] [--messages 1500] [--interval 10] [--pace spec|max]
// Prints send→ack p50/p95/p99/max for both runs and their ratio, event-loop
// delay, the backfill's progress during the loaded run and its batch p99.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { HistoryService } from '../src/service/history-service.ts';
import { generateBridgeHome, prepareHistory } from '../test/helpers/bridge.ts';
import { envFor, fixturesDir, sqliteModule, tempDir } from '../test/helpers/home.ts';
import { percentile, runBrokerLoop, type LoopResult } from './broker-loop.ts';

const { values } = parseArgs({
  options: {
    bytes: { type: 'string', default: '256MiB' },
    messages: { type: 'string', default: '1500' },
    interval: { type: 'string', default: '10' },
    pace: { type: 'string', default: 'spec' },
  },
});
const messages = Number(values.messages);
const intervalMs = Number(values.interval);
const pace = values.pace === 'max' ? 'max' : 'spec';

function line(label: string, r: LoopResult): string {
  const f = (p: number): string => percentile(r.latencies, p).toFixed(2).padStart(8);
  return `${label.padEnd(22)} p50 ${f(50)}  p95 ${f(95)}  p99 ${f(99)}  max ${f(100)} ms  | loop delay p99 ${r.loopDelay.p99.toFixed(1)} ms, max ${r.loopDelay.max.toFixed(1)} ms | failures ${r.failures}`;
}

const started = performance.now();
const corpus = tempDir('abh-bench-load-');
execFileSync(process.execPath, [join(fixturesDir, 'make-corpus.mjs'), corpus, '--bytes', values.bytes as string, '--workers', '2', '--sqlite-module', sqliteModule], { stdio: 'ignore' });
const { dir } = generateBridgeHome();
prepareHistory(dir);
const bridgeDb = join(dir, 'bridge.db');
console.log(`corpus ${values.bytes} and bridge home ready in ${((performance.now() - started) / 1000).toFixed(1)} s; ${messages} messages, one every ${intervalMs} ms, pace ${pace}`);

const baseline = await runBrokerLoop({ bridgeDb, messages, intervalMs });
console.log(line('baseline (no history)', baseline));

const service = new HistoryService({ env: envFor(corpus, { AGENT_BRIDGE_HOME: dir }), mode: 'serve', pace });
await service.start();
while ((await service.status()).counts.records === 0) await sleep(50);
const before = await service.status();
const loopStart = performance.now();
const loaded = await runBrokerLoop({ bridgeDb, messages, intervalMs });
const seconds = (performance.now() - loopStart) / 1000;
await sleep(5500); // status counts refresh every 5 s
const after = await service.status();
await service.stop();
console.log(line('during backfill', loaded));
const ratio = (p: number): string => (percentile(loaded.latencies, p) / Math.max(0.001, percentile(baseline.latencies, p))).toFixed(2);
console.log(`ratio loaded/baseline: p95 ${ratio(95)}x, p99 ${ratio(99)}x`);
const mib = (after.counts.rawBytes - before.counts.rawBytes) / 1024 / 1024;
console.log(
  `backfill during the loaded run (+5.5 s): ${mib.toFixed(1)} MiB, ${after.counts.records - before.counts.records} records (${(mib / (seconds + 5.5)).toFixed(1)} MiB/s); ` +
    `batch p50 ${after.batches.p50Ms.toFixed(1)} ms, p99 ${after.batches.p99Ms.toFixed(1)} ms; backlog left ${(after.backlog.bytes / 1024 / 1024).toFixed(1)} MiB` +
    (after.backlog.bytes === 0 ? ' (the corpus was too small to keep the backfill busy: raise --bytes)' : ''),
);
const p99 = percentile(loaded.latencies, 99);
console.log(`target p99 < 50 ms: ${p99 < 50 ? 'met' : 'NOT met'} (${p99.toFixed(2)} ms); earlier bar p95 < 1 s: ${percentile(loaded.latencies, 95) < 1000 ? 'met' : 'NOT met'}`);
