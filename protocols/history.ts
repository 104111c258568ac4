// Messages of the history actor, the single writer of history.db.

import type { CommitChunk, CommitResult } from '../src/store/commit.ts';
import type { SourceCursor, StoredSource } from '../src/store/source-rows.ts';
import type { StoreCounts } from '../src/store/writer.ts';
import type { SourcePlan } from '../src/sources/source-module.ts';

export type HistoryMessage =
  /** Every stored file source with its cursor. */
  | { readonly type: 'loadSources' }
  /** Register discovered sources and their conversations. */
  | { readonly type: 'register'; readonly plans: readonly SourcePlan[] }
  /** A registered file moved (same identity): keep its source id, record the new path. */
  | { readonly type: 'move'; readonly id: string; readonly path: string }
  /** Records, documents and cursors of one batch, in one transaction. */
  | { readonly type: 'commit'; readonly chunks: readonly CommitChunk[] }
  /** New file facts without new bytes. */
  | { readonly type: 'touch'; readonly id: string; readonly facts: Pick<SourceCursor, 'identity' | 'size' | 'mtimeMs'> }
  /** Retained chunks of one generation, in offset order (read outside transactions). */
  | { readonly type: 'retained'; readonly source: string; readonly generation: number }
  | { readonly type: 'counts' };

export interface HistoryReplies {
  loadSources: StoredSource[];
  register: number;
  move: void;
  commit: CommitResult;
  touch: void;
  retained: Iterable<{ offset: number; raw: Uint8Array }>;
  counts: StoreCounts;
}
