// bench/ingest-corpus: capture a benchmark corpus with the production
// pipeline (supervisor, discovery, lanes, parser pool, history actor), hosted
// in this thread, with one limit changed: registered files re-examined per
// poll tick (LIMITS.pollStatsPerTick, 256). `ingest --once` awaits that many
// sequential lstat calls before every batch of two 64 KiB chunks; on a
// 2,400-file corpus on a loaded 2-vCPU machine that, not parsing or SQLite,
// set the pace (strace: ~1,200 statx/s, 0.07 MiB/s). It changes when files
// are re-examined, not what is captured: the store's content is the same.
//
//   node --import tsx bench/ingest-corpus.ts <corpus dir> [--poll-stats 8]

import { parseArgs } from 'node:util';
import { Supervisor } from '../actors/supervisor.ts';
import { LIMITS } from '../src/config/limits.ts';

const { values, positionals } = parseArgs({ options: { 'poll-stats': { type: 'string', default: '8' } }, allowPositionals: true });
const home = positionals[0];
if (home === undefined) throw new Error('usage: bench/ingest-corpus.ts <corpus dir> [--poll-stats N]');
const supervisor = new Supervisor({ ...LIMITS, pollStatsPerTick: Number(values['poll-stats']) });
const started = performance.now();
const progress = setInterval(() => {
  const s = supervisor.status();
  process.stderr.write(`${((performance.now() - started) / 1000).toFixed(0)} s: ${s.counts.records} records, ${(s.counts.rawBytes / 1048576).toFixed(0)} MiB, backlog ${s.backlog.sources} sources\n`);
}, 60_000);
await supervisor.start({ env: { PATH: process.env.PATH, HOME: home }, mode: 'once', pace: 'max' });
const summary = await supervisor.finished();
clearInterval(progress);
const seconds = (performance.now() - started) / 1000;
console.log(
  `captured ${summary.records} records, ${(summary.rawBytes / 1048576).toFixed(1)} MiB, ${summary.documents} documents in ${summary.batches} batches, ${seconds.toFixed(1)} s (${(summary.rawBytes / 1048576 / seconds).toFixed(2)} MiB/s)`,
);
