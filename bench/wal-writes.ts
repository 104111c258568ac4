// bench/wal-writes: what the writer writes, by b-tree.
//
//   node --import tsx bench/wal-writes.ts [--corpus /tmp/bench-corpus-256m] [--bytes 256MiB]
//          [--merge-pages N] [--work /tmp/bench-wal-work] [--top 30]
//
// A capture's file-system writes are many times its source bytes (the WAL,
// then the checkpoints that copy it): this says where they come from. The
// corpus's Claude and Codex files are read and parsed off the clock
// (bench/lib/derive.ts), then committed through HistoryWriter in the
// pipeline's batches with the capture loop's merge steps after each commit
// (LIMITS.captureMergePages a step unless --merge-pages says otherwise) and
// its idle merges at the end, on one thread, with checkpoints held off: the
// WAL then holds every page every transaction wrote. Each frame is
// attributed to the b-tree that owns its page at the end (dbstat; a page
// freed and reused during the run counts for its last owner), and to the
// kind of transaction that wrote it: a batch's commit or a merge step.
// Prints the WAL's size against the source bytes, frames per batch commit
// and per merge transaction, and a table by b-tree.

import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LIMITS } from '../src/config/limits.ts';
import { openWriter } from '../src/store/open.ts';
import { capturedFiles, ensureCorpus } from './lib/corpus.ts';
import { batches, deriveAll } from './lib/derive.ts';
import { driveWriter, type WriterStep } from './lib/store-variants.ts';
import { framesByOwner, pageOwners, readWalFrames } from './lib/wal-frames.ts';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: '/tmp/bench-corpus-256m' },
    bytes: { type: 'string', default: '256MiB' },
    'merge-pages': { type: 'string', default: String(LIMITS.captureMergePages) },
    work: { type: 'string', default: '/tmp/bench-wal-work' },
    top: { type: 'string', default: '30' },
  },
  strict: true,
});
const mergePages = Number(values['merge-pages']);
if (!Number.isSafeInteger(mergePages) || mergePages < 1) throw new Error(`--merge-pages: a positive integer, not ${values['merge-pages']}`);
const log = (line: string): void => void process.stdout.write(`${line}\n`);
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);

log(`$ node --import tsx bench/wal-writes.ts ${process.argv.slice(2).join(' ')}`.trim());
ensureCorpus({ dir: values.corpus as string, bytes: values.bytes as string, hugeLineMb: 0, hugeFileMb: 0 }, log);
const derived = deriveAll(await capturedFiles(values.corpus as string));
const groups = batches(derived.chunks);
log(`corpus: ${mib(derived.rawBytes)} MiB of Claude and Codex files in ${derived.chunks.length} chunks, ${groups.length} batches`);

const work = values.work as string;
mkdirSync(work, { recursive: true });
const path = join(work, 'wal-writes.db');
const removeStore = (): void => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
};
removeStore();
const db = openWriter(path);
// No checkpoint while the run lasts: the WAL keeps every frame written.
db.pragma('wal_autocheckpoint = 0');
const walFrames = (): number => (db.pragma('wal_checkpoint(NOOP)') as Array<{ log: number }>)[0]?.log ?? 0;

/** The kind of call that wrote each WAL frame, in ranges: [first frame, end, kind]. */
const ranges: Array<[number, number, WriterStep]> = [];
let before = walFrames();
// The schema written when the store was created counts as setup, with the sources' registration.
if (before > 0) ranges.push([0, before, 'register']);
const t0 = performance.now();
const run = driveWriter(db, groups, 'loop', mergePages, (step) => {
  const now = walFrames();
  if (now > before) ranges.push([before, now, step]);
  before = now;
});
const seconds = (performance.now() - t0) / 1000;

const wal = readWalFrames(`${path}-wal`);
const ownerOf = pageOwners(db);
const storeBytes = (db.pragma('page_count', { simple: true }) as number) * wal.pageBytes;
// Split the transactions by the kind of call that wrote them (ranges and transactions are both in WAL order).
const byStep: Record<WriterStep, number[][]> = { register: [], commit: [], merge: [] };
let frame = 0;
let range = 0;
for (const pages of wal.commits) {
  while (range < ranges.length && (ranges[range] as [number, number, WriterStep])[1] <= frame) range++;
  const current = ranges[range];
  if (current === undefined || frame < current[0]) throw new Error(`WAL frame ${frame} was written outside every step`);
  byStep[current[2]].push(pages);
  frame += pages.length;
}
const { commit: batchCommits, merge: mergeCommits } = byStep;
db.close();
removeStore();

const count = (commits: number[][]): number => commits.reduce((n, c) => n + c.length, 0);
const walBytes = count(wal.commits) * wal.pageBytes;
log(`writer: ${seconds.toFixed(1)} s, ${run.docs} documents, ${run.records} records; merge steps of ${mergePages} pages`);
log(`WAL: ${mib(walBytes)} MiB (${(walBytes / derived.rawBytes).toFixed(2)} per source byte) in ${wal.commits.length} transactions; the store: ${mib(storeBytes)} MiB`);
log(`  batch commits: ${batchCommits.length}, ${count(batchCommits)} frames (${(count(batchCommits) / Math.max(1, batchCommits.length)).toFixed(1)} per commit)`);
log(`  setup (schema, sources): ${byStep.register.length} transactions, ${count(byStep.register)} frames`);
log(`  merge transactions: ${mergeCommits.length}, ${count(mergeCommits)} frames (${(count(mergeCommits) / Math.max(1, mergeCommits.length)).toFixed(1)} per transaction)`);

const inBatches = new Map(framesByOwner(batchCommits, ownerOf).map((o) => [o.owner, o]));
const inMerges = new Map(framesByOwner(mergeCommits, ownerOf).map((o) => [o.owner, o]));
const all = framesByOwner(wal.commits, ownerOf);
log('');
log('| b-tree | WAL MiB | frames per batch commit | frames in merges | distinct pages written | writes per page |');
log('| --- | --- | --- | --- | --- | --- |');
for (const o of all.slice(0, Number(values.top))) {
  const perCommit = (inBatches.get(o.owner)?.frames ?? 0) / Math.max(1, batchCommits.length);
  log(`| ${o.owner} | ${mib(o.frames * wal.pageBytes)} | ${perCommit.toFixed(2)} | ${inMerges.get(o.owner)?.frames ?? 0} | ${o.pages} | ${(o.frames / o.pages).toFixed(1)} |`);
}
