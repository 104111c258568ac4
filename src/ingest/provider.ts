// Record providers: sources whose records are not byte ranges of a file
// (OpenCode rows, bridge envelopes, decisions, jobs...). The scheduler asks
// each provider for one bounded unit of work per batch; the provider reads its
// source outside any transaction and returns ready records; the history actor
// commits them in the same transaction as the batch's file chunks, together
// with the provider's cursors, so a provider cursor never runs ahead of its
// records.

import type { RowBatch, RowDocument } from '../../protocols/rows.ts';
import type { SourceProblem } from '../../protocols/service.ts';

/** A retained record handed back to its provider during a reindex. */
export interface RetainedRow {
  readonly id: number;
  readonly source: string;
  readonly generation: number;
  readonly offset: number;
  readonly conversation: string;
  readonly raw: Uint8Array;
  readonly part: string | null;
}

export interface RecordProvider {
  readonly name: string;
  /** One bounded unit of work, read outside any transaction; null when nothing is ready now. */
  next(): Promise<RowBatch | null>;
  /** The batch committed: advance in-memory state. */
  committed(batch: RowBatch): void;
  /** The batch was not committed: forget what next() advanced. */
  abandoned(batch: RowBatch): void;
  /** More work is known to be waiting. */
  readonly backlog: boolean;
  problems(): SourceProblem[];
  /** Whether `source` (a record's source key) is one of this provider's. */
  owns(source: string): boolean;
  /** Derive documents again from a retained record (reindex). */
  documentsFor(row: RetainedRow): RowDocument[];
  close(): Promise<void>;
}

/**
 * What a provider's next() advanced, held until its batch is committed (then
 * applied) or abandoned (then dropped): in-memory cursors never run ahead of
 * committed records.
 */
export class BatchEffects {
  private readonly pending = new Map<RowBatch, ReadonlyArray<() => void>>();

  hold(batch: RowBatch, effects: ReadonlyArray<() => void>): void {
    this.pending.set(batch, effects);
  }

  committed(batch: RowBatch): void {
    for (const effect of this.pending.get(batch) ?? []) effect();
    this.pending.delete(batch);
  }

  abandoned(batch: RowBatch): void {
    this.pending.delete(batch);
  }
}
