// What every migration pass shares: the history.db writer connection, the
// chunk bounds, the unit budget, the gate (yield, pressure, stop), the IO
// pacer, and hooks that observe each finished chunk and unit (status
// counters, tests, benchmarks). `runUnit` is the one place a pass does work:
// gate, then one synchronous unit of chunks sharing one commit, then pacing
// accounts for its payload IO.

import { HistoryError } from '../../protocols/errors.ts';
import type { MigrationPass } from '../../protocols/migration.ts';
import type { Db } from '../store/open.ts';
import type { MigrationGate } from './gate.ts';
import type { IoPacer } from './pacer.ts';
import type { ChunkRecord, TableState } from './progress-db.ts';
import { type ByteSink, chunkDigest } from './row-hash.ts';
import { digestOf, type EncodedChunk } from './row-sql.ts';
import type { ChunkBounds, RawRow } from './rows.ts';

/** A unit's work: a pass's chunks, a revalidation, a tail replay, or a merge of the index the copy wrote (index-merge.ts). */
export type StepKind = MigrationPass | 'revalidate' | 'tail' | 'merge';

/**
 * Payload IO counted per chunk byte: a snapshot or copy chunk is read, written
 * and read back to check (3x); verification and revalidation read once; a
 * merge rewrites derived index pages, not payload.
 */
export const IO_FACTOR: Record<StepKind, number> = { snapshot: 3, 'snapshot-verify': 1, copy: 3, verify: 1, revalidate: 1, tail: 3, merge: 0 };

/** A paced unit carries at most this much of the pace's IO, so that pacing waits stay short and even. */
const PACED_UNIT_MS = 100;

export interface ChunkEvent {
  readonly kind: StepKind;
  readonly table: string;
  readonly rows: number;
  readonly bytes: number;
  /** Time this chunk's work took inside its unit (ms). */
  readonly ms: number;
  /** The chunk's rowid range (after, end]; after null: from the first row. */
  readonly after: bigint | null;
  readonly end: bigint | null;
}

export interface UnitEvent {
  readonly kind: StepKind;
  readonly table: string;
  readonly chunks: number;
  readonly rows: number;
  readonly bytes: number;
  /** Time of the whole synchronous unit, its commits included (ms). */
  readonly ms: number;
}

export interface PassContext {
  readonly history: Db;
  readonly bounds: ChunkBounds;
  /** Time budget of one unit (its chunks and its commits), ms. */
  readonly unitMs: number;
  /** Pages of one FTS5 merge step (a merge unit runs steps while its time lasts). */
  readonly mergePages: number;
  readonly gate: MigrationGate;
  readonly pacer: IoPacer;
  readonly onChunk: (event: ChunkEvent) => void;
  readonly onUnit: (event: UnitEvent) => void;
  /** A pass starts (or resumes) over these tables (for status). */
  readonly onPass: (pass: MigrationPass, tables: readonly TableState[]) => void;
  /** What the commit at the end of a unit took lately, per kind (ms; learned as units run). */
  readonly commitMs: Map<StepKind, number>;
}

export interface StepResult {
  readonly rows: number;
  readonly bytes: number;
}

/**
 * One unit of migration work: chunks run one after another in one
 * synchronous stretch (and, for the writing passes, one transaction), between
 * two yields. Each chunk keeps its own bounds (32 rows, 512 KiB, 50 ms of
 * reading) and its own checkpoint; the unit only decides how many chunks
 * share a commit: another chunk starts while the time spent, plus the
 * longest chunk of this unit, plus the commit the last units needed, stays
 * within `unitMs`. The first chunk always runs.
 */
export class Unit {
  chunks = 0;
  rows = 0;
  bytes = 0;
  /** The unit did work worth reporting: rows moved or checked, or index pages merged. */
  worked = false;
  private longest = 0;
  /** When the last chunk ended (the work after it is the commit). */
  lastEnd: number;

  constructor(
    private readonly ctx: PassContext,
    readonly kind: StepKind,
    readonly table: string,
    readonly started: number,
  ) {
    this.lastEnd = started;
  }

  /** Record a finished chunk (its checkpoint written in the unit's transaction) and report it. */
  chunk(done: { readonly rows: number; readonly bytes: number; readonly after: bigint | null; readonly end: bigint | null }): void {
    const now = performance.now();
    const ms = now - this.lastEnd;
    this.lastEnd = now;
    this.longest = Math.max(this.longest, ms);
    this.chunks++;
    this.rows += done.rows;
    this.bytes += done.bytes;
    this.worked ||= done.rows > 0;
    if (done.rows > 0) this.ctx.onChunk({ kind: this.kind, table: this.table, rows: done.rows, bytes: done.bytes, ms, after: done.after, end: done.end });
  }

  /** Whether another chunk fits in this unit. */
  more(): boolean {
    if (this.ctx.gate.interrupted) return false;
    const rate = this.ctx.pacer.limit;
    if (rate !== null && this.bytes * IO_FACTOR[this.kind] >= (rate * PACED_UNIT_MS) / 1000) return false;
    const commit = this.ctx.commitMs.get(this.kind) ?? 0;
    return performance.now() - this.started + this.longest + commit < this.ctx.unitMs;
  }
}

/** Remember the commit time of a unit: a slower commit counts at once, a faster one gradually. */
function learnCommit(ctx: PassContext, kind: StepKind, ms: number): void {
  const known = ctx.commitMs.get(kind) ?? ms;
  ctx.commitMs.set(kind, ms >= known ? ms : known * 0.9 + ms * 0.1);
}

/**
 * Gate (yield, pace, pressure, stop), run one synchronous unit, account its
 * IO. `work` runs chunks while `unit.more()` says so and commits them; it
 * returns what the caller needs next. Returns that.
 */
export async function runUnit<T>(
  ctx: PassContext,
  options: { readonly kind: StepKind; readonly table: string; readonly pinned: boolean },
  work: (unit: Unit) => T,
): Promise<T> {
  await ctx.gate.between({ pinned: options.pinned, delayMs: ctx.pacer.delayMs() });
  const started = performance.now();
  const unit = new Unit(ctx, options.kind, options.table, started);
  const result = work(unit);
  const ended = performance.now();
  ctx.pacer.account(unit.bytes * IO_FACTOR[options.kind], started);
  if (unit.chunks > 0) learnCommit(ctx, options.kind, ended - unit.lastEnd);
  if (unit.worked) ctx.onUnit({ kind: options.kind, table: options.table, chunks: unit.chunks, rows: unit.rows, bytes: unit.bytes, ms: ended - started });
  return result;
}

/** A unit of exactly one chunk (the tail replay's batches). Returns what `work` returned. */
export async function step<T extends StepResult>(
  ctx: PassContext,
  options: { readonly kind: StepKind; readonly table: string; readonly pinned: boolean },
  work: () => T,
): Promise<T> {
  return runUnit(ctx, options, (unit) => {
    const result = work();
    unit.chunk({ rows: result.rows, bytes: result.bytes, after: null, end: null });
    return result;
  });
}

/** The first rowid where two row lists differ (for a precise error), or null. */
export function firstDifference(expected: readonly RawRow[], actual: readonly RawRow[]): string | null {
  const length = Math.max(expected.length, actual.length);
  for (let i = 0; i < length; i++) {
    const e = expected[i];
    const a = actual[i];
    if (e === undefined) return `an unexpected row ${String(a?.[0])}`;
    if (a === undefined || a[0] !== e[0]) return `row ${String(e[0])} (missing or replaced by another row)`;
    if (chunkDigest([e]) !== chunkDigest([a])) return `row ${String(e[0])} (a different row with this key or rowid is already there)`;
  }
  return null;
}

type RecordedChunk = Pick<ChunkRecord, 'name' | 'generation' | 'after' | 'end' | 'rows' | 'sha256'>;

/** The error of a chunk that is not what was recorded (`first`: where two row lists first differ, when known). */
export function chunkMismatch(chunk: RecordedChunk, where: string, actual: { readonly rows: number; readonly digest: string }, first: string | null = null): HistoryError {
  return new HistoryError(
    'VERIFY_FAILED',
    `${where}: ${chunk.name} (generation ${chunk.generation}) rows ${chunk.after ?? 'first'}..${chunk.end} differ from the recorded chunk ` +
      `(${actual.rows} rows, digest ${actual.digest.slice(0, 12)}; expected ${chunk.rows} rows, digest ${chunk.sha256.slice(0, 12)})` +
      (first === null ? '' : `; first difference at ${first}`),
    { step: where },
  );
}

/** Rows read back must be exactly the chunk that was recorded: same count, same bh-row-v1 digest. */
export function checkChunk(
  rows: readonly RawRow[],
  chunk: RecordedChunk,
  where: string,
  options: { readonly digest?: string; readonly expected?: readonly RawRow[] } = {},
): void {
  const actual = options.digest ?? chunkDigest(rows);
  if (rows.length === chunk.rows && actual === chunk.sha256) return;
  const first = options.expected === undefined ? null : firstDifference(options.expected, rows);
  throw chunkMismatch(chunk, where, { rows: rows.length, digest: actual }, first);
}

/**
 * The encoded chunk must be the recorded one; its bytes also go to `stream`.
 * On a disagreement `explain` may throw a more precise error first.
 */
export function checkEncoded(encoded: EncodedChunk, chunk: RecordedChunk, where: string, stream: ByteSink | null, explain?: () => void): void {
  const digest = digestOf(encoded);
  if (encoded.rows !== chunk.rows || digest !== chunk.sha256) {
    explain?.();
    throw chunkMismatch(chunk, where, { rows: encoded.rows, digest });
  }
  stream?.update(encoded.bytes);
}
