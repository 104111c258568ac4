// Messages of the history actor, the single writer of history.db.

import type { CommitChunk, CommitResult, CommitTotals } from '../src/store/commit.ts';
import type { FileSourceRow, ReindexProgress, RetainedRecord } from '../src/store/reindex-store.ts';
import type { SourceCursor, StoredSource } from '../src/store/source-rows.ts';
import type { StoreCounts } from '../src/store/writer.ts';
import type { RetainedVersion } from '../src/store/records.ts';
import type { SourcePlan } from '../src/sources/source-module.ts';
import type { RowBatch } from '../src/ingest/provider.ts';
import type { RetainedSpan, ScrubProgress } from '../src/store/scrub-store.ts';

export type HistoryMessage =
  /** Every stored file source with its cursor. */
  | { readonly type: 'loadSources' }
  /** Register discovered sources and their conversations. */
  | { readonly type: 'register'; readonly plans: readonly SourcePlan[] }
  /** A registered file moved (same identity): keep its source id, record the new path. */
  | { readonly type: 'move'; readonly id: string; readonly path: string }
  /** Records, documents and cursors of one batch, in one transaction. */
  | { readonly type: 'commit'; readonly chunks: readonly CommitChunk[]; readonly rows: readonly RowBatch[] }
  /** Move a cursor without new bytes (verified-unchanged facts, or a new generation's start). */
  | { readonly type: 'touch'; readonly id: string; readonly facts: Partial<SourceCursor> }
  /** Retained chunks of one generation, in offset order (read outside transactions). */
  | { readonly type: 'retained'; readonly source: string; readonly generation: number }
  /** Records of one generation from an offset on, up to a byte budget (the scrubber compares them with the file). */
  | { readonly type: 'spansFrom'; readonly source: string; readonly generation: number; readonly offset: number; readonly maxBytes: number }
  /** The record of one generation holding the byte at `offset` (spot checks when a file changes). */
  | { readonly type: 'spanAt'; readonly source: string; readonly generation: number; readonly offset: number }
  /** Retained bytes [from, to) of one generation (the start of a line a lane continues), or null where a record is missing. */
  | { readonly type: 'retainedBytes'; readonly source: string; readonly generation: number; readonly from: number; readonly to: number }
  | { readonly type: 'scrubProgress' }
  | { readonly type: 'saveScrub'; readonly progress: ScrubProgress }
  | { readonly type: 'counts' }
  /** Cursors whose key starts with `prefix` (a record provider loading its committed state). */
  | { readonly type: 'cursors'; readonly prefix: string }
  /** Retained generations (observed versions) of row-shaped sources (bridge envelopes). */
  | { readonly type: 'versions'; readonly sources: readonly string[] }
  // Reindex: reset derived documents, then derive them again from retained records.
  | { readonly type: 'reindexProgress' }
  | { readonly type: 'lastReindex' }
  | { readonly type: 'beginReindex'; readonly requestedAt: number }
  | { readonly type: 'resetStep'; readonly progress: ReindexProgress; readonly limit: number }
  | { readonly type: 'saveReindex'; readonly progress: ReindexProgress | null }
  | { readonly type: 'nextFileSource'; readonly after: string }
  | { readonly type: 'recordsFrom'; readonly source: string; readonly generation: number; readonly offset: number; readonly maxRecord: number; readonly limit: number }
  | { readonly type: 'otherRecords'; readonly after: number; readonly maxRecord: number; readonly limit: number }
  | { readonly type: 'rebuild'; readonly chunks: readonly CommitChunk[]; readonly rows: readonly RowBatch[]; readonly progress: ReindexProgress; readonly next: ReindexProgress };

export interface HistoryReplies {
  loadSources: StoredSource[];
  register: number;
  move: void;
  commit: CommitResult;
  touch: void;
  retained: Iterable<{ offset: number; raw: Uint8Array }>;
  spansFrom: RetainedSpan[];
  spanAt: RetainedSpan | undefined;
  retainedBytes: Uint8Array | null;
  scrubProgress: ScrubProgress;
  saveScrub: void;
  counts: StoreCounts;
  cursors: Array<[string, string]>;
  versions: RetainedVersion[];
  reindexProgress: ReindexProgress | null;
  lastReindex: number | null;
  beginReindex: ReindexProgress;
  resetStep: number;
  saveReindex: void;
  nextFileSource: FileSourceRow | undefined;
  recordsFrom: RetainedRecord[];
  otherRecords: RetainedRecord[];
  rebuild: CommitTotals;
}
