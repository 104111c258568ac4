// What one step over one database produces, and the budget bounding it.
// Records, links and cursor values go into the provider's batch; `effects`
// change in-memory state and run only when the batch is committed, so an
// abandoned batch leaves the provider exactly as the store is.

import type { ParentLink } from '../../../protocols/records.ts';
import type { RowRecord } from '../../../protocols/rows.ts';
import { sliceDocuments } from './documents.ts';
import type { RowCursor } from './cursor.ts';
import { opencodeConversation, type RowTable, type Table } from '../../keys/opencode.ts';
import type { Queries } from './queries.ts';
import { SLICE_BYTES, sliceAt, type Retained, type Slot } from './slices.ts';
import { carryOf } from './text.ts';

/** Known state of one session: committed cursors and what discovery learned. */
export interface SessionRef {
  readonly id: string;
  parent: string | null;
  project: string | null;
  /** time_updated of the last retained revision of the session row (null: none known). */
  revision: number | null;
  readonly cursors: Record<RowTable, RowCursor>;
}

export interface StepBudget {
  readonly bytes: number;
  readonly rows: number;
}

export class StepOutput {
  readonly records: RowRecord[] = [];
  readonly links: ParentLink[] = [];
  readonly cursors = new Map<string, string>();
  readonly effects: Array<() => void> = [];
  private bytes = 0;
  private rows = 0;

  constructor(private readonly budget: StepBudget) {}

  get exhausted(): boolean {
    return this.bytes >= this.budget.bytes || this.rows >= this.budget.rows;
  }

  countRow(): void {
    this.rows++;
  }

  add(record: RowRecord): void {
    this.records.push(record);
    this.bytes += record.raw.length;
  }

  /** Take another step's output (this database's, after it succeeded). */
  absorb(other: StepOutput): void {
    for (const record of other.records) this.add(record);
    this.rows += other.rows;
    this.links.push(...other.links);
    for (const [key, value] of other.cursors) this.cursors.set(key, value);
    this.effects.push(...other.effects);
  }
}

export interface StepDeps {
  readonly tag: string;
  readonly q: Queries;
  readonly retained: Retained;
  /** Which of these sources have a retained record (one question for a page of rows). */
  readonly retainedAmong: (sources: readonly string[]) => ReadonlySet<string>;
  /** Rows updated after this time are still being written: left for a later step (serve); null takes everything (once). */
  readonly settledBefore: number | null;
}

export interface Revision {
  readonly source: string;
  readonly session: SessionRef;
  readonly table: Table;
  /** The `part` column: the row id (the session id for session rows). */
  readonly part: string;
  readonly at: number;
  readonly data: Buffer;
}

/**
 * Emit the slices of a revision from `slot.offset` on: all of them when
 * `whole`, otherwise until the budget is spent (at least one). Returns the
 * offset copying continues at (data.length when the revision is complete).
 */
export function emitSlices(out: StepOutput, revision: Revision, slot: Slot, whole: boolean): number {
  const { data, session } = revision;
  let offset = slot.offset;
  let first = true;
  while (first || offset < data.length) {
    if (!first && !whole && out.exhausted) break;
    first = false;
    const slice = sliceAt(data, offset);
    const at = offset;
    out.add({
      source: revision.source,
      generation: slot.generation,
      offset: at,
      conversation: { id: opencodeConversation(session.id), agent: 'opencode', session: session.id, parent: session.parent === null ? null : opencodeConversation(session.parent), kind: 'transcript' },
      project: session.project,
      at: revision.at,
      raw: slice,
      part: revision.part,
      documents: sliceDocuments(revision.table, at, slice, () => carryOf(data.subarray(Math.max(0, at - SLICE_BYTES), at))),
    });
    offset += slice.length;
    if (slice.length === 0) break;
  }
  return offset;
}
