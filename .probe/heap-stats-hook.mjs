// node --import ./.probe/heap-stats-hook.mjs ...: every thread appends its V8 heap figures to $PROBE_OUT every second.
import { getHeapStatistics, getHeapSpaceStatistics } from 'node:v8';
import { appendFileSync } from 'node:fs';
import { threadId, workerData, isMainThread } from 'node:worker_threads';
const out = process.env.PROBE_OUT ?? '/work/idle/heapstats.jsonl';
const name = isMainThread ? 'main' : String(workerData?.entry ?? '?').split('/').pop();
const t0 = Date.now();
const timer = setInterval(() => {
  const h = getHeapStatistics();
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, Math.round(s.space_size / 1024)]));
  appendFileSync(out, JSON.stringify({ t: Date.now(), thread: threadId, name, total: Math.round(h.total_heap_size / 1024), used: Math.round(h.used_heap_size / 1024), malloced: Math.round(h.malloced_memory / 1024), external: Math.round(h.external_memory / 1024), spaces }) + '\n');
}, 1000);
timer.unref();
