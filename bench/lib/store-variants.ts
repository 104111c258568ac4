// Single-thread insert benchmarks over pre-derived chunks (no reading, no
// parsing on the clock), each into a fresh database file:
//
//   baseline  the reference: raw 64 KiB blobs plus FTS5 inserts of
//             the same derived text. Schema (stated in the report):
//               CREATE TABLE blobs(id INTEGER PRIMARY KEY, raw BLOB NOT NULL);
//               CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61');
//             one blob row per chunk, one FTS row per derived document, the
//             writer's pragmas (its page size and checkpoint interval, WAL, synchronous=NORMAL, 32 MiB cache) and the
//             pipeline's transaction budgets (LIMITS.batchRawBytes raw, LIMITS.batchBodyBytes text: derive.ts batches()).
//   blob      the blob half of the baseline alone.
//   fts       the FTS half of the baseline alone.
//   writer    our HistoryWriter.commit on our schema (records, documents,
//             refs, cursors, FTS triggers): the writer's cost without the
//             pipeline around it.
//   writer-merged the writer as the capture loop drives it: automerge off,
//             and the loop's bounded FTS5 merge steps (HistoryWriter.mergeIndex
//             with LIMITS.captureMergePages / ftsMergeMs) after every commit at the
//             backlog's fanout, then at the idle one until none is owed, timed
//             apart from the commits (what merging between batches costs
//             against FTS5's merging inside the commits of `writer`).
//   writer-merged-4  the same, merging at the idle fanout (FTS5's default, 4)
//             all along: what the backlog's fanout saves (src/store/fts-merge.ts).
//   writer-nofts  the same without the FTS table (where the FTS cost goes).

import Database from 'better-sqlite3';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { LIMITS } from '../../src/config/limits.ts';
import { CHECKPOINT_WAL_BYTES, NEW_STORE_PAGE_BYTES, WRITER_CACHE_KIB, openWriter, type Db } from '../../src/store/open.ts';
import type { CommitChunk } from '../../protocols/history.ts';
import { HistoryWriter } from '../../src/store/writer.ts';
import { batches, type DerivedChunk } from './derive.ts';
import { packTexts } from '../../protocols/segment-texts.ts';
import { threadTimes } from './instrument-worker-channel.ts';
import { summarize, type Summary } from './stats.ts';

export const VARIANTS = ['baseline', 'blob', 'fts', 'writer', 'writer-merged', 'writer-merged-4', 'writer-nofts'] as const;
export type Variant = (typeof VARIANTS)[number];

export interface VariantResult {
  readonly variant: Variant;
  readonly seconds: number;
  /** CPU time of this process (user + system) during the run: less sensitive to a busy machine than wall time. */
  readonly cpuSeconds: number;
  readonly rawBytes: number;
  readonly documents: number;
  readonly records: number;
  readonly batches: Summary;
  /** CPU time of this (the only) thread inside each batch. */
  readonly batchesCpu: Summary;
  /** writer-merged: every merge step after a commit (the loop's mergeIndex call), wall time; then the idle merges. */
  readonly merges?: Summary;
  readonly compactMs?: number;
  readonly dbBytes: number;
}

const cpuNow = (): number => threadTimes((path) => readFileSync(path, 'utf8')).cpuMs;

export interface Timed {
  ms: number[];
  cpuMs: number[];
  mergeMs?: number[];
  /** writer-merged: the merges at the idle fanout after the last commit. */
  compactMs?: number;
  docs: number;
  records: number;
}

/** Run `body` timing wall and thread CPU. */
function timed(samples: Timed, body: () => void): void {
  const c0 = cpuNow();
  const t0 = performance.now();
  body();
  samples.ms.push(performance.now() - t0);
  samples.cpuMs.push(cpuNow() - c0);
}

function removeDb(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

function fileBytes(path: string): number {
  let total = 0;
  for (const suffix of ['', '-wal']) {
    try {
      total += statSync(path + suffix).size;
    } catch {
      // absent
    }
  }
  return total;
}

function openPlain(path: string): Database.Database {
  const db = new Database(path);
  // The same pragmas as src/store/open.ts openWriter.
  db.pragma(`page_size = ${NEW_STORE_PAGE_BYTES}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('temp_store = MEMORY');
  db.pragma(`cache_size = -${WRITER_CACHE_KIB}`);
  db.pragma(`wal_autocheckpoint = ${CHECKPOINT_WAL_BYTES / NEW_STORE_PAGE_BYTES}`);
  return db;
}

function runPlain(path: string, groups: DerivedChunk[][], blobs: boolean, fts: boolean): Timed {
  const db = openPlain(path);
  db.exec('CREATE TABLE blobs(id INTEGER PRIMARY KEY, raw BLOB NOT NULL)');
  db.exec("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61')");
  const insertBlob = db.prepare('INSERT INTO blobs (raw) VALUES (?)');
  const insertDoc = db.prepare('INSERT INTO docs (body) VALUES (?)');
  const out: Timed = { ms: [], cpuMs: [], docs: 0, records: 0 };
  const commit = db.transaction((group: DerivedChunk[]) => {
    for (const chunk of group) {
      if (blobs) {
        insertBlob.run(chunk.result.bytes);
        out.records++;
      }
      if (!fts) continue;
      for (const segment of chunk.result.segments) {
        if (segment.text === '') continue;
        insertDoc.run(segment.text);
        out.docs++;
      }
    }
  });
  for (const group of groups) timed(out, () => commit.immediate(group));
  db.close();
  return out;
}

/** A derived chunk as the parser pool would hand it over (texts packed; made before the clock starts). */
function toCommitChunk(chunk: DerivedChunk): CommitChunk {
  const { plan, size } = chunk.file;
  const { segments, texts } = packTexts(chunk.result);
  return {
    source: plan.id,
    conversation: plan.conversation.id,
    generation: 0,
    offset: chunk.offset,
    bytes: chunk.result.bytes,
    segments,
    texts,
    hints: chunk.result.hints,
    // A recorded cwd that does not exist here keeps its form (src/project/canonical.ts).
    project: chunk.result.hints.cwd,
    after: { identity: 'bench', anchor: '', head: '', size, mtimeMs: 0 },
  };
}

/** How a writer variant merges its FTS5 index: inside commits (FTS5's automerge), or between them as the loop does. */
export type Merging = 'automerge' | 'loop' | 'loop-at-4';

/** What driveWriter has just done. */
export type WriterStep = 'register' | 'commit' | 'merge';

function runWriter(path: string, groups: DerivedChunk[][], fts: boolean, merging: Merging = 'automerge'): Timed {
  const db = openWriter(path, { fts });
  const out = driveWriter(db, groups, merging);
  db.close();
  return out;
}

/**
 * Commit `groups` through a HistoryWriter on `db`, one transaction each, with
 * the capture loop's merge steps after every commit (`merging` 'loop', at
 * `mergePages` a step) and its idle merges at the end, timing both.
 * `afterStep` runs after the sources' registration, every commit and every
 * merge call.
 */
export function driveWriter(
  db: Db,
  groups: DerivedChunk[][],
  merging: Merging,
  mergePages = LIMITS.captureMergePages,
  afterStep: (step: WriterStep) => void = () => undefined,
): Timed {
  const writer = new HistoryWriter(db);
  const plans = new Map(groups.flat().map((c) => [c.file.plan.id, c.file.plan]));
  writer.register([...plans.values()]);
  afterStep('register');
  const commitGroups = groups.map((g) => g.map(toCommitChunk));
  const out: Timed = { ms: [], cpuMs: [], docs: 0, records: 0, ...(merging === 'automerge' ? {} : { mergeMs: [] }) };
  const backlog = merging === 'loop';
  for (const group of commitGroups) {
    timed(out, () => {
      const result = writer.commit(group);
      out.docs += result.documents;
      out.records += result.records;
    });
    afterStep('commit');
    if (out.mergeMs === undefined) continue;
    const t0 = performance.now();
    writer.mergeIndex(mergePages, LIMITS.ftsMergeMs, backlog);
    out.mergeMs.push(performance.now() - t0);
    afterStep('merge');
  }
  // What the loop does once capture is idle: merges at the idle fanout until none is owed (timed with the rest).
  if (out.mergeMs !== undefined) {
    const t0 = performance.now();
    while (writer.mergeIndex(mergePages, LIMITS.ftsMergeMs, false)) afterStep('merge');
    afterStep('merge');
    out.compactMs = performance.now() - t0;
  }
  return out;
}

export function runVariant(variant: Variant, chunks: readonly DerivedChunk[], path: string): VariantResult {
  removeDb(path);
  const groups = batches(chunks);
  const rawBytes = chunks.reduce((n, c) => n + c.result.bytes.length, 0);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let run: Timed;
  switch (variant) {
    case 'baseline':
      run = runPlain(path, groups, true, true);
      break;
    case 'blob':
      run = runPlain(path, groups, true, false);
      break;
    case 'fts':
      run = runPlain(path, groups, false, true);
      break;
    case 'writer':
      run = runWriter(path, groups, true);
      break;
    case 'writer-merged':
      run = runWriter(path, groups, true, 'loop');
      break;
    case 'writer-merged-4':
      run = runWriter(path, groups, true, 'loop-at-4');
      break;
    case 'writer-nofts':
      run = runWriter(path, groups, false);
      break;
  }
  // The clock includes the final close (its checkpoint), as a run's end would.
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const dbBytes = fileBytes(path);
  removeDb(path);
  return { variant, seconds, cpuSeconds, rawBytes, documents: run.docs, records: run.records, batches: summarize(run.ms), batchesCpu: summarize(run.cpuMs), ...(run.mergeMs === undefined ? {} : { merges: summarize(run.mergeMs), compactMs: run.compactMs ?? 0 }), dbBytes };
}
