// Shapes shared by the parser pool (producer) and the history actor (consumer).
// A parse task carries one source chunk; its result says, for every line or
// line fragment in the chunk, which conversation it belongs to and what text
// it contributes to the search index. Nothing here touches a database.

export const AGENTS = ['claude', 'codex', 'opencode', 'other'] as const;
export type Agent = (typeof AGENTS)[number];

export const KINDS = ['message', 'run', 'decision', 'transcript', 'approval', 'progress', 'report'] as const;
export type Kind = (typeof KINDS)[number];

/**
 * How the bytes of a file source are read and decoded.
 * - `claude`, `codex`: JSONL transcripts, one document per line.
 * - `text`: plain text (Claude's persisted tool output); one document per chunk.
 * - `opaque`: retained byte-exactly but not indexed (sidecar metadata, compressed rollouts).
 * - `opencode-json`: one JSON document per file (OpenCode's pre-1.2 JSON store), one document per file.
 * - `run-log`: an agent-bridge job run log (`runs/*.log`), plain text lines; one document per chunk.
 * - `run-meta`: a run's metadata JSON (`runs/*.json`), one document per file.
 * - `approval`: an approval request JSON; its capability (pid, port, token) is blanked in the
 *   retained copy (same length) before anything is derived from it.
 * - `journal`: the context-events spool (JSONL); each event line may be routed to its job.
 * The last two names are the legacy `conversation_sources.format` values of those files.
 */
export const LINE_FORMATS = ['claude', 'codex', 'text', 'opaque', 'opencode-json', 'run-log', 'run-meta', 'approval', 'journal'] as const;
export type LineFormat = (typeof LINE_FORMATS)[number];

/** Formats whose files are one document each: read whole when they fit a chunk (see chunker.ts). */
export const DOCUMENT_FORMATS: ReadonlySet<LineFormat> = new Set<LineFormat>(['opencode-json', 'run-meta', 'approval']);

/**
 * Formats whose last bytes must land in the final chunk: a chunk that does not
 * reach the end of the file stops this many bytes early, so the final chunk
 * always holds the file's last HOLD_BACK_BYTES (an approval's trailing
 * capability is never cut in two, and can be blanked in one piece).
 */
export const HOLD_BACK_BYTES = 1024;
export const HOLD_BACK_FORMATS: ReadonlySet<LineFormat> = new Set<LineFormat>(['approval']);

/** What a parser needs to know about the source a chunk came from. */
export interface ChunkContext {
  /** The conversation the file belongs to. */
  readonly conversation: string;
  /** The CLI session id of that conversation. */
  readonly session: string;
  /** For a Claude agent file: the agent id the file itself belongs to. */
  readonly ownAgentId: string | null;
}

export interface ParseTask {
  readonly format: LineFormat;
  /** The chunk. Transferred to the worker, and back in the result. */
  readonly bytes: Uint8Array;
  /** File offset of bytes[0]. */
  readonly offset: number;
  /** The previous chunk did not end with a newline: bytes[0] continues a line. */
  readonly startsMidLine: boolean;
  /**
   * The unfinished token (at most 256 bytes, decoded) the previous chunk ended
   * with; prepended to the first fragment's text so that a word cut by a
   * chunk boundary stays findable.
   */
  readonly carry: string;
  /**
   * The chunk ends inside a line whose next bytes are already captured or on
   * disk: its trailing token becomes the next chunk's carry, so this chunk's
   * last fragment leaves it out. False at the end of what exists (an
   * unfinished last line keeps its last word findable).
   */
  readonly continues: boolean;
  /**
   * When bytes[0] continues a line: the line's bytes before this chunk, if
   * they are at most WHOLE_LINE_MAX (a line caught half-written, a line a
   * little longer than a chunk). The line that completes in this chunk is
   * then indexed whole, as if it had been read in one piece.
   */
  readonly lineHead?: Uint8Array;
  readonly context: ChunkContext;
}

/** The longest line whose start is kept to index it whole once it completes (see ParseTask.lineHead). */
export const WHOLE_LINE_MAX = 1024 * 1024;

/**
 * Facts about one line that differ from its conversation's (a context event's
 * kind, agent and job). A continuation fragment carries none: it inherits the
 * facts of the line it continues (see RouteState in src/store/commit.ts).
 */
export interface LineFacts {
  readonly kind?: Kind;
  readonly agent?: Agent;
  readonly job?: string | null;
  readonly session?: string | null;
  /**
   * The line is a bridge event routed to a top-level bridge conversation (its
   * job): the routed copy is keyed `<source>:event:<conversation>` with part
   * `event:<kind>` (the legacy keys), not an inline native child.
   */
  readonly event?: boolean;
}

/** Formats whose line text can be derived again from the retained bytes alone (src/text/transcript-text.ts). */
export const TEXT_FORMATS = ['claude', 'codex'] as const;
export type TextFormat = (typeof TEXT_FORMATS)[number];

/**
 * How a segment's text was made from its bytes, when nothing else went into
 * it: `format`'s text of the parsed line, or (a fragment, or a line that is
 * not JSON) the bytes with JSON escapes decoded, after `carry` (the token
 * the previous chunk ended with; null: the segment does not continue a
 * line); `trimmed`: the trailing token was left to the next chunk. With it,
 * a store may keep the recipe instead of the text (src/text/span-text.ts).
 */
export interface TextRecipe {
  readonly format: TextFormat;
  readonly carry: string | null;
  readonly trimmed: boolean;
  /**
   * How much of the line the text reads, when not the segment as above:
   * 'head', the first part of a line that goes on past its chunk, decoded as
   * far as its JSON goes (partial-json.ts); 'whole', the rest of a line that
   * began in an earlier chunk, decoded with its start as if read in one
   * piece: the text derives from the line's bytes from Segment.lineStart,
   * which lie in earlier records of the same source generation.
   */
  readonly reach?: TextReach;
}

export type TextReach = 'head' | 'whole';

/** One line, or the part of a line, that lies inside a chunk. */
export interface Segment {
  /** File offset of the segment's first byte. */
  readonly offset: number;
  readonly length: number;
  /**
   * The rest of a line that began in an earlier chunk: it belongs wherever
   * that line was routed, and `route` is ignored.
   */
  readonly continuation: boolean;
  /** Conversation id; null means the file's own conversation. */
  readonly route: string | null;
  /** Derived search text; empty means no document. */
  readonly text: string;
  /** Record time (epoch ms) when the line says so. */
  readonly at: number | null;
  /** The segment ends with the line's newline. */
  readonly complete: boolean;
  /** Facts of this line that differ from the conversation's (ignored on a continuation). */
  readonly facts?: LineFacts;
  /** How `text` derives from the segment's bytes, when it derives from them alone. */
  readonly recipe?: TextRecipe;
  /** With recipe.reach 'whole': the file offset of the line's first byte (before this chunk). */
  readonly lineStart?: number;
}

/** A native parent learned from the bytes (Claude toolUseResult.agentId). */
export interface ParentLink {
  readonly child: string;
  readonly parent: string;
}

export interface ChunkHints {
  /** First working directory named by a record in this chunk. */
  readonly cwd: string | null;
  /** The conversation's own native parent, from the file's canonical first line. */
  readonly parent: string | null;
  /** Parents of other conversations (children spawned from this chunk). */
  readonly links: readonly ParentLink[];
  /** Complete lines that were not valid JSON (indexed as text, reported in status). */
  readonly malformed: number;
}

export interface ParseResult {
  readonly bytes: Uint8Array;
  readonly segments: readonly Segment[];
  readonly hints: ChunkHints;
}

/**
 * A segment as it travels between threads: its text is not a string here but
 * `textBytes` bytes of its chunk's `texts` (protocols/segment-texts.ts),
 * unless UTF-8 cannot hold it (a lone surrogate): then it is `illFormedText`.
 */
export type WireSegment = Omit<Segment, 'text'> & { readonly textBytes: number; readonly illFormedText?: string };

/**
 * A ParseResult as the parser pool hands it over and a commit carries it to
 * the writer thread: the segments' texts are UTF-8 in one buffer, transferred
 * with the chunk's bytes, so the history worker, which only counts them,
 * never holds them as strings (protocols/segment-texts.ts says why).
 */
export interface ParsedChunk {
  readonly bytes: Uint8Array;
  readonly segments: readonly WireSegment[];
  /** Every segment's text, UTF-8, in segment order. */
  readonly texts: Uint8Array;
  readonly hints: ChunkHints;
}
