// Shapes of file sources and conversations that cross a boundary: discovery
// plans them (discovery actor, parser side), providers seed conversations
// (worker side), and the history actor stores them and hands cursors back.

import type { Agent, Kind, LineFacts, LineFormat } from './records.ts';

export interface ConversationSeed {
  readonly id: string;
  readonly agent: Agent;
  readonly session: string;
  /** Native parent known from the path; bytes may refine it later. */
  readonly parent: string | null;
  readonly kind: Kind;
  /** The agent-bridge job the conversation belongs to, when known from the path (run logs). */
  readonly job?: string | null;
}

/** A file the pipeline will capture. */
export interface SourcePlan {
  /** Stable source id: the absolute path at first registration (legacy-compatible). */
  readonly id: string;
  readonly path: string;
  readonly format: LineFormat;
  readonly conversation: ConversationSeed;
  /** Claude agent files: the agent the file itself belongs to. */
  readonly ownAgentId: string | null;
}

/** What a source cursor remembers about the file, besides the legacy columns. */
export interface CursorFacts {
  readonly identity: string;
  readonly offset: number;
  readonly anchor: string;
  /** sha256 of the first min(offset, HEAD_BYTES) bytes; '' when unknown (migrated cursors). */
  readonly head: string;
  /** Size and mtime when the cursor last moved; -1 when unknown. */
  readonly size: number;
  readonly mtimeMs: number;
}

export interface SourceCursor extends CursorFacts {
  readonly generation: number;
  /** Route of the line that continues past `offset`; null: the file's conversation. */
  readonly route: string | null;
  /** Offset where that continuing line started. */
  readonly lineStart: number;
  /** Time of the last captured line, for fragments that carry none. */
  readonly at: number | null;
  /** Facts of the line that continues past `offset` (context events). */
  readonly facts?: LineFacts | null;
}

export interface StoredSource {
  readonly id: string;
  readonly path: string;
  /** The conversation the source was registered with; its records belong to it whatever its file is named now. */
  readonly conversation: string;
  /** That conversation's session, null when the conversation has no row. */
  readonly session: string | null;
  readonly format: string;
  readonly checked: number;
  readonly cursor: SourceCursor;
}
