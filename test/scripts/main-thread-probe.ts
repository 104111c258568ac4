// Drives HistoryService from a main thread, as the broker would, and reports
// which modules this thread loaded and how long its event loop was blocked.
// Usage: node --import tsx test/scripts/main-thread-probe.ts  (env: HOME of a fixture home)
import { createRequire, register } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MessageChannel } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
const resolved = new Set<string>();
port1.on('message', (url: string) => resolved.add(url));
register('./trace-hooks.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const { HistoryService } = await import('../../src/service/history-service.ts');
const service = new HistoryService({ mode: 'once', pace: 'max' });
await service.start();
const summary = await service.finished();
await service.stop();
delay.disable();
await new Promise((resolve) => setTimeout(resolve, 100));
port1.close();
const cjs = Object.keys(createRequire(import.meta.url).cache);
process.stdout.write(
  JSON.stringify({ records: summary.records, resolved: [...resolved], cjs, eventLoopMaxMs: delay.max / 1e6, eventLoopP99Ms: delay.percentile(99) / 1e6 }),
);
