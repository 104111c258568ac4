// How far V8 lets this process's heaps grow past their live data before a
// full collection. The flag is process-wide and read at every collection, so
// it covers the main thread and every worker thread (history worker, parser
// and reader threads) alike.
//
// V8's own factor is dynamic, up to 4x: during a capture the history
// worker's heap, about 33 MiB live, grew to 80-96 MiB between collections,
// and every isolate of the process did the same. Measured (2-vCPU VM,
// `ingest --once --pace max`):
//   - the scale bench's 1 GiB corpus in 9,000 sessions, compiled: peak RSS
//     360-379 MiB in 165.7-175.6 s by default; 281 MiB in 158.8 s at 2x;
//     255-269 MiB in 158.6-176.5 s at 1.5x; 260 MiB in 186.8 s at 1.2x;
//   - bench/ingest.ts --runs max (1 GiB of Claude and Codex files, from the
//     sources): 327-360 MiB in 94.1-97.4 s by default; 291 MiB in 100.1 s
//     at 2x; 273-280 MiB in 103.8-107.5 s at 1.5x (the collections' CPU).
//   - the scale bench's 4 GiB corpus, compiled: 368.5 MiB in 587.5 s by
//     default, 282.2 MiB in 669.6 s at 2x (one run each); its 8 GiB
//     corpus 333.0 MiB in 1,405.4 s at 2x (492.2 MiB from the sources before).
// Since the writer thread took the commits (the history worker, whose heap
// is the largest, has time to spare), 1.5x costs capture no time these runs
// can tell from their noise (one slow run at each size). Compiled,
// 2026-12-06: the 1 GiB corpus in 9,000 sessions 273.8-278.6 MiB in
// 114.4-141.2 s at 1.5x against 288.1-294.5 MiB in 112.0-121.4 s at 2x; the
// 4 GiB corpus 289.3-291.2 MiB in 428.8-458.9 s at 1.5x, 317.5 MiB in
// 435.6 s at 2x.
// 1.5x keeps the peak under 300 MiB up to 4 GiB.
//
// A process started with its own --heap-growing-percent keeps it: the host
// decides for its own heap. (Node refuses the flag in NODE_OPTIONS, so the
// command line is the only place a host can have put it.)

import { setFlagsFromString } from 'node:v8';

/** The heap may grow to 1.5 times its live size before a full collection. */
export const HEAP_GROWING_PERCENT = 50;

const FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

let settled = false;

/** Whether the host already chose a heap growth: the flag among node's own arguments. */
export function hostChoseHeapGrowth(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) => FLAG.test(arg));
}

/** Sets V8's heap growing factor to 1 + HEAP_GROWING_PERCENT / 100, once, unless the host chose one. */
export function limitHeapGrowth(): void {
  if (settled) return;
  settled = true;
  if (hostChoseHeapGrowth(process.execArgv)) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
