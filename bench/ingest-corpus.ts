// bench/ingest-corpus: capture a benchmark corpus with the production
// pipeline (supervisor, discovery, lanes, parser pool, history actor), hosted
// in this thread, with two settings changed that only affect pace, not what
// is captured (the store's content is the same as `ingest --once`):
// - registered files re-examined per poll tick (LIMITS.pollStatsPerTick,
//   256): `ingest --once` awaits that many sequential lstat calls before each
//   batch; on a 2,400-file corpus on a loaded 2-vCPU machine that set the
//   pace (strace: ~1,200 statx/s, 0.07 MiB/s);
// - parser threads (AGENT_BRIDGE_HISTORY_PARSERS, default 4 here): on 2 vCPUs
//   the pool has 1 thread and piscina's maxQueue 'auto' (threads squared) is
//   1, while two lanes read 8 chunks ahead each; parses are refused ("Task
//   queue is at limit"), the lanes are dropped, reopened and read and parse
//   the same chunks again: on the corpus's big files no batch committed.
//
//   node --import tsx bench/ingest-corpus.ts <corpus dir> [--poll-stats 8] [--parsers 4]

import { parseArgs } from 'node:util';
import { Supervisor } from '../actors/supervisor.ts';
import { LIMITS } from '../src/config/limits.ts';

const { values, positionals } = parseArgs({
  options: { 'poll-stats': { type: 'string', default: '8' }, parsers: { type: 'string', default: '4' } },
  allowPositionals: true,
});
const home = positionals[0];
if (home === undefined) throw new Error('usage: bench/ingest-corpus.ts <corpus dir> [--poll-stats N]');
const supervisor = new Supervisor({ ...LIMITS, pollStatsPerTick: Number(values['poll-stats']) });
const started = performance.now();
const progress = setInterval(() => {
  const s = supervisor.status();
  const problem = s.problems[0] === undefined ? '' : `; problem: ${s.problems[0].code} ${s.problems[0].message}`;
  process.stderr.write(`${((performance.now() - started) / 1000).toFixed(0)} s: ${s.counts.records} records, ${(s.counts.rawBytes / 1048576).toFixed(0)} MiB, backlog ${s.backlog.sources} sources${problem}\n`);
}, 60_000);
await supervisor.start({ env: { PATH: process.env.PATH, HOME: home, AGENT_BRIDGE_HISTORY_PARSERS: values.parsers }, mode: 'once', pace: 'max' });
// Ctrl-C stops at a safe point (committed cursors are kept; a later run continues).
process.once('SIGINT', () => void supervisor.stop());
const summary = await supervisor.finished();
clearInterval(progress);
const seconds = (performance.now() - started) / 1000;
console.log(
  `captured ${summary.records} records, ${(summary.rawBytes / 1048576).toFixed(1)} MiB, ${summary.documents} documents in ${summary.batches} batches, ${seconds.toFixed(1)} s (${(summary.rawBytes / 1048576 / seconds).toFixed(2)} MiB/s)`,
);
