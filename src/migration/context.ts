// What every migration pass shares: the history.db writer connection, the
// chunk bounds, the gate (yield, pressure, stop), the IO pacer, and a hook
// that observes each finished chunk (status counters, tests, benchmarks).
// `step` is the one place a pass does a unit of work: gate, then one
// synchronous chunk, then pacing accounts for its payload IO.

import { HistoryError } from '../../protocols/errors.ts';
import type { MigrationPass } from '../../protocols/migration.ts';
import type { Db } from '../store/open.ts';
import type { MigrationGate } from './gate.ts';
import type { IoPacer } from './pacer.ts';
import type { ChunkRecord, TableState } from './progress-db.ts';
import { chunkDigest } from './row-hash.ts';
import type { ChunkBounds, RawRow } from './rows.ts';

export type StepKind = MigrationPass | 'revalidate' | 'tail';

/**
 * Payload IO counted per chunk byte: a snapshot or copy chunk is read, written
 * and read back to check (3x); verification and revalidation read once.
 */
export const IO_FACTOR: Record<StepKind, number> = { snapshot: 3, 'snapshot-verify': 1, copy: 3, verify: 1, revalidate: 1, tail: 3 };

export interface ChunkEvent {
  readonly kind: StepKind;
  readonly table: string;
  readonly rows: number;
  readonly bytes: number;
  /** Time the synchronous chunk work took (ms). */
  readonly ms: number;
}

export interface PassContext {
  readonly history: Db;
  readonly bounds: ChunkBounds;
  readonly gate: MigrationGate;
  readonly pacer: IoPacer;
  readonly onChunk: (event: ChunkEvent) => void;
  /** A pass starts (or resumes) over these tables (for status). */
  readonly onPass: (pass: MigrationPass, tables: readonly TableState[]) => void;
}

export interface StepResult {
  readonly rows: number;
  readonly bytes: number;
}

/** Gate, run one synchronous chunk, account its IO. Returns what `work` returned. */
export async function step<T extends StepResult>(
  ctx: PassContext,
  options: { readonly kind: StepKind; readonly table: string; readonly pinned: boolean },
  work: () => T,
): Promise<T> {
  await ctx.gate.between({ pinned: options.pinned, delayMs: ctx.pacer.delayMs() });
  const started = performance.now();
  const result = work();
  const ms = performance.now() - started;
  ctx.pacer.account(result.bytes * IO_FACTOR[options.kind], started);
  if (result.rows > 0) ctx.onChunk({ kind: options.kind, table: options.table, rows: result.rows, bytes: result.bytes, ms });
  return result;
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

/** Rows read back must be exactly the chunk that was recorded: same count, same bh-row-v1 digest. */
export function checkChunk(
  rows: readonly RawRow[],
  chunk: Pick<ChunkRecord, 'name' | 'generation' | 'after' | 'end' | 'rows' | 'sha256'>,
  where: string,
  options: { readonly digest?: string; readonly expected?: readonly RawRow[] } = {},
): void {
  const actual = options.digest ?? chunkDigest(rows);
  if (rows.length === chunk.rows && actual === chunk.sha256) return;
  const first = options.expected === undefined ? null : firstDifference(options.expected, rows);
  throw new HistoryError(
    'VERIFY_FAILED',
    `${where}: ${chunk.name} (generation ${chunk.generation}) rows ${chunk.after ?? 'first'}..${chunk.end} differ from the recorded chunk ` +
      `(${rows.length} rows, digest ${actual.slice(0, 12)}; expected ${chunk.rows} rows, digest ${chunk.sha256.slice(0, 12)})` +
      (first === null ? '' : `; first difference at ${first}`),
    { step: where },
  );
}
