// Records of record providers (OpenCode rows, bridge envelopes, decisions,
// jobs...): what a provider's batch carries to the history actor, committed in
// one transaction with the provider's cursors (see src/ingest/provider.ts).

import type { SegmentText } from './segment-texts.ts';
import type { Agent, Kind, ParentLink, TextRecipe } from './records.ts';
import type { ConversationSeed } from './sources.ts';

export interface DocumentInput {
  /** A string, or (a captured file's segment) UTF-8 bytes the store binds as text (protocols/segment-texts.ts). */
  readonly text: SegmentText;
  /** Distinguishes the documents of one record: `durable:<record>:<offset>`. */
  readonly offset: number;
  /** Where the document's line starts (fragments of one line share it). */
  readonly line: number;
  readonly at: number;
  readonly kind?: Kind;
  readonly agent?: Agent;
  readonly session?: string | null;
  readonly job?: string | null;
  readonly message?: string | null;
  readonly run?: string | null;
  /** Where the text derives from in its record's bytes (JSONL lines of Claude and Codex), when it derives from them alone. */
  readonly span?: DocumentSpan;
}

/** A document's text as a recipe over its record's bytes (see TextRecipe; src/store/schema.ts keeps it in history_document_spans). */
export interface DocumentSpan {
  /** Offset of the segment's bytes in the record's raw bytes. */
  readonly start: number;
  readonly length: number;
  readonly recipe: TextRecipe;
}

/** One search document derived from a record; its time is the record's. */
export type RowDocument = Omit<DocumentInput, 'at'>;

export interface RowRecord {
  readonly source: string;
  readonly generation: number;
  readonly offset: number;
  readonly conversation: ConversationSeed;
  /** Canonical project of the conversation, when the provider knows it. */
  readonly project: string | null;
  readonly at: number;
  readonly raw: Uint8Array;
  readonly part: string | null;
  readonly documents: readonly RowDocument[];
}

export interface RowBatch {
  readonly provider: string;
  readonly records: readonly RowRecord[];
  /** history_cursors rows (key, value) committed with the records. */
  readonly cursors: ReadonlyArray<readonly [string, string]>;
  readonly links: readonly ParentLink[];
  /** Sessions bound to jobs and learned aliases (bridge provider), applied after the records. */
  readonly bindings?: readonly BindingRow[];
  readonly aliases?: readonly AliasRow[];
}

export interface BindingRow {
  readonly session: string;
  readonly agent: Agent;
  /** The CLI's working directory as the broker recorded it ('' when unknown). */
  readonly cwd: string;
  readonly job: string | null;
  /** Canonical project of the job's workdir, resolved before the transaction ('' when none). */
  readonly project: string;
}

export interface AliasRow {
  readonly alias: string;
  readonly session: string;
  readonly job: string | null;
}
