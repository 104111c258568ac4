// Committing file chunks: for every chunk, in order: the raw record, records
// for lines routed to other conversations (inline sidechains), one search
// document per line, conversation metadata learned from the bytes, and
// finally the source cursor. All of it commits in the caller's transaction,
// or none of it does (invariant 2: records before cursors).
//
// A reindex replays retained chunks through the same code: the records are
// found (identical) instead of inserted, the documents are derived again, and
// the source cursor is left alone.

import { HistoryError } from '../../protocols/errors.ts';
import type { CommitChunk, CommitTotals } from '../../protocols/history.ts';
import type { LineFacts, WireSegment } from '../../protocols/records.ts';
import { segmentTexts, type SegmentText } from '../../protocols/segment-texts.ts';
import type { DocumentSpan } from '../../protocols/rows.ts';
import type { ConversationSeed, SourceCursor } from '../../protocols/sources.ts';
import { eventSource } from '../keys/bridge.ts';
import { inlineSource } from '../keys/claude.ts';
import { RecordAppender } from './appender.ts';
import type { ConversationIndex } from './conversations.ts';
import type { SourceRows } from './source-rows.ts';

export { documentId } from './appender.ts';

/** Where a line that continues past a chunk is routed, carried from chunk to chunk. */
export interface RouteState {
  /** Route of a line continuing into the next chunk (null: the file's own conversation). */
  readonly route: string | null;
  readonly lineStart: number;
  readonly at: number | null;
  /** Facts of that continuing line (a context event's kind, agent, job). */
  readonly facts?: LineFacts | null;
}

interface RoutedLine {
  readonly segment: WireSegment;
  readonly text: SegmentText;
  readonly lineStart: number;
  readonly at: number;
  readonly facts: LineFacts | null;
}

/** Consecutive segments of one conversation (and, for bridge events, of one event kind). */
interface Run {
  readonly route: string;
  readonly event: string | null;
  readonly start: number;
  end: number;
  at: number;
  readonly lines: RoutedLine[];
}

/** The conversation a routed run lands in: a bridge event's top-level job conversation, or an inline native child. */
function routedSeed(run: Run, own: ConversationRowLike): ConversationSeed {
  const facts = run.lines[0]?.facts ?? null;
  if (run.event !== null) {
    return { id: run.route, agent: facts?.agent ?? own.agent, session: facts?.session ?? '', parent: null, kind: 'report', job: facts?.job ?? null };
  }
  return { id: run.route, agent: own.agent, session: own.session, parent: own.id, kind: own.kind };
}

type ConversationRowLike = Pick<ConversationSeed, 'id' | 'agent' | 'session' | 'kind'>;

/**
 * Resolve each segment's conversation (a continuation follows its line), line
 * start and time, and group consecutive segments of one conversation.
 */
export function routeSegments(segments: readonly WireSegment[], texts: readonly SegmentText[], own: string, state: RouteState, fallbackAt: number) {
  const runs: Run[] = [];
  let route = state.route;
  let lineStart = state.lineStart;
  let facts = state.facts ?? null;
  let at = Math.trunc(state.at ?? fallbackAt);
  for (const [index, segment] of segments.entries()) {
    const resolved = (segment.continuation ? route : segment.route) ?? own;
    const start = segment.continuation ? lineStart : segment.offset;
    const lineFacts = segment.continuation ? facts : (segment.facts ?? null);
    const event = resolved !== own && lineFacts?.event === true ? (lineFacts.kind ?? 'report') : null;
    at = Math.trunc(segment.at ?? at);
    const last = runs.at(-1);
    const line = { segment, text: texts[index] as SegmentText, lineStart: start, at, facts: lineFacts };
    if (last !== undefined && last.route === resolved && last.event === event) {
      last.end = segment.offset + segment.length;
      last.at = at;
      last.lines.push(line);
    } else {
      runs.push({ route: resolved, event, start: segment.offset, end: segment.offset + segment.length, at, lines: [line] });
    }
    const continues = !segment.complete;
    route = continues && resolved !== own ? resolved : null;
    facts = continues ? lineFacts : null;
    lineStart = segment.complete ? segment.offset + segment.length : start;
  }
  return { runs, recordAt: at, next: { route, lineStart, at, facts } satisfies RouteState };
}

/**
 * Where a segment's text derives from in its record (offsets relative to the
 * record's first byte, `recordOffset` in the file). A whole line's span
 * begins before its record, in the earlier records of the chunk's own source
 * generation, which hold the line's bytes end to end (inline copies of
 * routed lines are cut per run and may not: such a line keeps its text).
 */
function spanOf(segment: WireSegment, recordOffset: number, ownRecord: boolean): DocumentSpan | undefined {
  const recipe = segment.recipe;
  if (recipe === undefined) return undefined;
  if (recipe.reach !== 'whole') return { start: segment.offset - recordOffset, length: segment.length, recipe };
  if (!ownRecord || segment.lineStart === undefined) return undefined;
  return { start: segment.lineStart - recordOffset, length: segment.offset + segment.length - segment.lineStart, recipe };
}

export class ChunkCommitter {
  constructor(
    private readonly appender: RecordAppender,
    private readonly conversations: ConversationIndex,
    private readonly sources: SourceRows,
  ) {}

  /**
   * Append one chunk's records and documents, continuing from `state`, and
   * return the state a following chunk continues from. Does not move cursors.
   * In `rebuild` mode the chunk is a retained record: no inline copy is
   * appended; documents of routed lines refer to the inline copy captured
   * with them, or to the chunk's own record when there is none (legacy
   * ingestors cut inline copies differently). The documents are queued:
   * the writer flushes them once per transaction (see appender.ts).
   */
  apply(chunk: CommitChunk, state: RouteState, totals: CommitTotals, mode: 'capture' | 'rebuild' = 'capture'): RouteState {
    const own = this.conversations.get(chunk.conversation);
    if (own === undefined) throw new Error(`source ${chunk.source} has no conversation ${chunk.conversation}`);
    if (chunk.project !== null) this.conversations.setProject(own.id, chunk.project);
    if (chunk.hints.parent !== null) this.conversations.setParent(own.id, chunk.hints.parent);

    const routed = routeSegments(chunk.segments, segmentTexts(chunk), own.id, state, chunk.after.mtimeMs);
    const recordId = this.appender.append(
      { source: chunk.source, generation: chunk.generation, offset: chunk.offset, conversation: own.id, at: routed.recordAt, raw: chunk.bytes, part: null },
      totals,
    );
    totals.malformed += chunk.hints.malformed;

    for (const run of routed.runs) {
      let record = recordId;
      /** File offset of the first byte of `record`'s raw bytes. */
      let recordOffset = chunk.offset;
      let conversation = own;
      if (run.route !== own.id) {
        // Lines of another conversation (an inline sidechain) also get a record of their own.
        conversation = this.conversations.ensure(routedSeed(run, own), run.event === null ? own.project : '');
        const inline = {
          source: run.event === null ? inlineSource(chunk.source, run.route) : eventSource(chunk.source, run.route),
          generation: chunk.generation,
          offset: run.start,
          conversation: run.route,
          at: run.at,
          raw: chunk.bytes.subarray(run.start - chunk.offset, run.end - chunk.offset),
          part: run.event === null ? null : `event:${run.event}`,
        };
        // A rebuild never appends: it uses the inline copy captured with this run, if there is one.
        const copy = mode === 'capture' ? this.appender.append(inline, totals) : this.appender.find(inline.source, inline.generation, inline.offset, inline.raw);
        if (copy !== undefined) {
          record = copy;
          recordOffset = inline.offset;
        }
      }
      for (const line of run.lines) {
        const f = line.facts;
        const { segment, text } = line;
        const span = spanOf(segment, recordOffset, record === recordId);
        this.appender.addDocument(
          record,
          conversation,
          { text, offset: segment.offset, line: line.lineStart, at: line.at, kind: f?.kind, agent: f?.agent, job: f?.job, session: f?.session, span },
          totals,
        );
      }
    }

    for (const link of chunk.hints.links) {
      const parent = this.conversations.get(link.parent);
      this.conversations.ensure({ id: link.child, agent: own.agent, session: own.session, parent: link.parent, kind: own.kind }, parent?.project ?? own.project);
      this.conversations.setParent(link.child, link.parent);
    }
    return routed.next;
  }

  /**
   * Capture: apply the chunk after the committed cursor and move the cursor
   * past it. A chunk commits only where its source's committed cursor ends
   * (or at the start of a newer generation): the capture loop sends a batch
   * before the one ahead of it has settled, and a batch behind one that
   * failed must not write past the gap it left (the whole batch fails).
   */
  commit(chunk: CommitChunk, previous: SourceCursor, totals: CommitTotals): SourceCursor {
    const continuing = previous.generation === chunk.generation;
    if (continuing ? chunk.offset !== previous.offset : chunk.generation < previous.generation || chunk.offset !== 0) {
      throw new HistoryError(
        'INTERNAL',
        `a chunk of ${chunk.source} at generation ${chunk.generation}, offset ${chunk.offset} does not continue its committed cursor (generation ${previous.generation}, offset ${previous.offset})`,
        { step: 'commit batch' },
      );
    }
    const state: RouteState = continuing ? previous : { route: null, lineStart: 0, at: null };
    const next = this.apply(chunk, state, totals);
    const cursor: SourceCursor = {
      generation: chunk.generation,
      offset: chunk.offset + chunk.bytes.length,
      ...chunk.after,
      route: next.route,
      lineStart: next.lineStart,
      at: next.at,
      facts: next.facts ?? null,
    };
    this.sources.saveCursor(chunk.source, cursor);
    return cursor;
  }
}
