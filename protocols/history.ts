// Messages of the history actor, the single writer of history.db, and the
// shapes their payloads and replies carry.

import { HistoryError } from './errors.ts';
import type { ChunkHints, LineFacts, WireSegment } from './records.ts';
import type { RowBatch } from './rows.ts';
import type { SourceCursor, SourcePlan, StoredSource } from './sources.ts';

export type HistoryMessage =
  /** Every stored file source with its cursor. */
  | { readonly type: 'loadSources' }
  /** Register discovered sources and their conversations. */
  | { readonly type: 'register'; readonly plans: readonly SourcePlan[] }
  /** A registered file moved (same identity): keep its source id, record the new path. */
  | { readonly type: 'move'; readonly id: string; readonly path: string }
  /**
   * Records, documents and cursors of one batch, in one transaction. Sent to
   * the writer thread, a commit takes its chunks' bytes along (transferred,
   * not copied: see commitTransfers): the sender cannot read them again.
   */
  | { readonly type: 'commit'; readonly chunks: readonly CommitChunk[]; readonly rows: readonly RowBatch[] }
  /** Move a cursor without new bytes (verified-unchanged facts, or a new generation's start). */
  | { readonly type: 'touch'; readonly id: string; readonly facts: Partial<SourceCursor> }
  /** Retained chunks of one generation, in offset order (read outside transactions). */
  | { readonly type: 'retained'; readonly source: string; readonly generation: number }
  /** One page of `retained` (what a caller in another thread pages through, src/service/writer-client.ts). */
  | { readonly type: 'retainedPage'; readonly source: string; readonly generation: number; readonly from: number; readonly limit: number }
  /** Records of one generation from an offset on, up to a byte budget (the scrubber compares them with the file). */
  | { readonly type: 'spansFrom'; readonly source: string; readonly generation: number; readonly offset: number; readonly maxBytes: number }
  /** The record of one generation holding the byte at `offset` (spot checks when a file changes). */
  | { readonly type: 'spanAt'; readonly source: string; readonly generation: number; readonly offset: number }
  /**
   * Which of `sources` have a retained record, in any generation: one
   * question for many sources, where asking `retained` of each would cost
   * a query apiece (OpenCode rows, each a source).
   */
  | { readonly type: 'retainedSources'; readonly sources: readonly string[] }
  /** Retained bytes [from, to) of one generation (the start of a line a lane continues), or null where a record is missing. */
  | { readonly type: 'retainedBytes'; readonly source: string; readonly generation: number; readonly from: number; readonly to: number }
  | { readonly type: 'scrubProgress' }
  | { readonly type: 'saveScrub'; readonly progress: ScrubProgress }
  | { readonly type: 'counts' }
  /**
   * Bounded FTS5 merges between batches (src/store/fts-merge.ts), at the
   * backlog's fanout while capture has a backlog; the reply says whether
   * merge work may remain.
   */
  | { readonly type: 'mergeIndex'; readonly pages: number; readonly budgetMs: number; readonly backlog: boolean }
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

/** Asking the history actor: a message, its reply (a worker's port to the actor). */
export type HistoryAsk = <T extends HistoryMessage>(message: T) => HistoryReplies[T['type']];

/** A reply, with how long the history actor took over it (a commit's transaction: the batch latency). */
export interface Timed<T> {
  readonly value: T;
  readonly ms: number;
}

/**
 * Sending the history actor a message without waiting for it: the reply
 * comes later, after the replies to everything sent or asked before it.
 */
export type HistorySend = <T extends HistoryMessage>(message: T) => Promise<Timed<HistoryReplies[T['type']]>>;

export interface HistoryReplies {
  loadSources: StoredSource[];
  register: number;
  move: void;
  commit: CommitResult;
  touch: void;
  retained: Iterable<{ offset: number; raw: Uint8Array }>;
  retainedPage: Array<{ offset: number; raw: Uint8Array }>;
  retainedSources: string[];
  spansFrom: RetainedSpan[];
  spanAt: RetainedSpan | undefined;
  retainedBytes: Uint8Array | null;
  scrubProgress: ScrubProgress;
  saveScrub: void;
  counts: StoreCounts;
  mergeIndex: boolean;
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

// Payloads and replies.

export interface CommitChunk {
  readonly source: string;
  /** The file's own conversation. */
  readonly conversation: string;
  readonly generation: number;
  readonly offset: number;
  /** Never empty: a lane hands out no empty chunk (an empty one is a chunk whose bytes were sent away). */
  readonly bytes: Uint8Array;
  readonly segments: readonly WireSegment[];
  /** The segments' texts, UTF-8, in segment order (protocols/segment-texts.ts); transferred like `bytes`. */
  readonly texts: Uint8Array;
  readonly hints: ChunkHints;
  /** Canonical project of hints.cwd, resolved before the transaction. */
  readonly project: string | null;
  /** File facts after this chunk; offset = offset + bytes.length. */
  readonly after: Pick<SourceCursor, 'identity' | 'anchor' | 'head' | 'size' | 'mtimeMs'>;
}

export interface AppendTotals {
  records: number;
  documents: number;
  rawBytes: number;
  bodyBytes: number;
}

export interface CommitTotals extends AppendTotals {
  /** Complete JSONL lines that were not valid JSON. */
  malformed: number;
}

export interface CommitResult extends CommitTotals {
  /** The cursor of every source the batch moved, after the batch. */
  readonly cursors: ReadonlyArray<readonly [string, SourceCursor]>;
}

export interface ReindexProgress {
  readonly phase: 'reset' | 'rebuild';
  readonly requestedAt: number;
  /** Documents with rowid ≤ maxDocument existed when the reindex started. */
  readonly maxDocument: number;
  /** Records with id ≤ maxRecord get their documents rebuilt. */
  readonly maxRecord: number;
  /** File source being rebuilt, in id order ('' before the first). */
  readonly source: string;
  /** That source, while it is being rebuilt; null between sources. */
  readonly file: FileSourceRow | null;
  readonly generation: number;
  readonly offset: number;
  /** Routing of a line continuing past `offset` (see RouteState). */
  readonly route: string | null;
  readonly lineStart: number;
  readonly at: number | null;
  readonly facts?: LineFacts | null;
  /** The record before `offset` ended inside a line. */
  readonly midLine: boolean;
  /** The unfinished token that record ended with (see ParseTask.carry). */
  readonly carry: string;
  /** 'files': file sources in id order; 'others': remaining records by id, after `afterRecord`. */
  readonly stage: 'files' | 'others';
  readonly afterRecord: number;
  /** Records whose documents were rebuilt so far. */
  readonly rebuilt: number;
}

export interface FileSourceRow {
  readonly id: string;
  readonly path: string;
  readonly conversation: string;
  readonly session: string;
  readonly format: string;
}

export interface RetainedRecord {
  readonly id: number;
  readonly source: string;
  readonly generation: number;
  readonly offset: number;
  readonly conversation: string;
  readonly at: number;
  readonly raw: Uint8Array;
  readonly part: string | null;
}

export interface RetainedVersion {
  readonly source: string;
  readonly generation: number;
  /** The generation's chunks concatenated in offset order. */
  readonly raw: Uint8Array;
}

/** Totals of what the store holds, for status. */
export interface StoreCounts {
  readonly sources: number;
  readonly conversations: number;
  readonly records: number;
  readonly documents: number;
  readonly rawBytes: number;
}

/** A retained record's offset and bytes (what the scrubber and the spot checks compare with the file). */
export interface RetainedSpan {
  readonly offset: number;
  readonly raw: Uint8Array;
}

/** What the scrubber has verified, persisted so a restart neither loses nor repeats it. */
export interface ScrubProgress {
  /** Sweeps completed over every captured file source. */
  readonly sweeps: number;
  /** When the last complete sweep started and ended (epoch ms), or null. */
  readonly lastSweepStartedAt: number | null;
  readonly lastSweepAt: number | null;
  /** The sweep in progress: when it started, the last source id it finished ('' before the first). */
  readonly sweepStartedAt: number | null;
  readonly after: string;
  readonly sweepSources: number;
  readonly sweepBytes: number;
  readonly sweepMismatches: number;
  /** What the last complete sweep verified: files, bytes, and files that differed. */
  readonly lastSweep: { readonly sources: number; readonly bytes: number; readonly mismatches: number } | null;
  /** Every byte ever compared equal, and every mismatch found (each started a new generation). */
  readonly verifiedBytes: number;
  readonly mismatches: number;
  readonly lastMismatch: { readonly source: string; readonly path: string; readonly generation: number; readonly offset: number; readonly at: number } | null;
}

/**
 * What a message moves to the thread it is posted to instead of copying: a
 * commit's chunk bytes and texts. Each chunk's bytes are a view on a buffer of its own
 * (read by a lane, then moved to a parser thread and back), so moving them
 * spares the two copies a structured clone makes (one through the
 * serializer, one into the writer thread's heap) of every captured byte,
 * and the history worker's heap and malloc arena the garbage they leave
 * behind. A buffer Node pools (a small Buffer) is copied anyway. The texts
 * are a buffer of their own too (protocols/segment-texts.ts); an empty one
 * is left to the clone.
 */
export function commitTransfers(message: HistoryMessage): ArrayBuffer[] {
  if (message.type !== 'commit') return [];
  // Bytes moved already read as empty, and a lane hands out no empty chunk. Refused here: Node 20 drops a
  // message whose transfer list names a moved buffer without a word (and a clone of one throws).
  const moved = message.chunks.find((chunk) => chunk.bytes.byteLength === 0);
  if (moved !== undefined) throw new HistoryError('INTERNAL', `a chunk of ${moved.source} at offset ${moved.offset} has no bytes: were they sent before?`);
  const buffers = message.chunks.flatMap((chunk) => (chunk.texts.byteLength > 0 ? [chunk.bytes.buffer, chunk.texts.buffer] : [chunk.bytes.buffer]));
  return [...new Set(buffers as ArrayBuffer[])];
}
