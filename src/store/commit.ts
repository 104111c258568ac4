// Committing a batch: the one write transaction of ingestion. For every chunk,
// in order: the raw record, records for lines routed to other conversations
// (inline sidechains), one search document per line, conversation metadata
// learned from the bytes, and finally the source cursor. All of it commits or
// none of it does (invariant 2: records before cursors).

import { HistoryError } from '../../protocols/errors.ts';
import type { ChunkHints, Segment } from '../../protocols/records.ts';
import type { ConversationIndex, ConversationRow } from './conversations.ts';
import type { Db } from './open.ts';
import type { SourceCursor, SourceRows } from './source-rows.ts';

export interface CommitChunk {
  readonly source: string;
  /** The file's own conversation. */
  readonly conversation: string;
  readonly generation: number;
  readonly offset: number;
  readonly bytes: Uint8Array;
  readonly segments: readonly Segment[];
  readonly hints: ChunkHints;
  /** Canonical project of hints.cwd, resolved before the transaction. */
  readonly project: string | null;
  /** File facts after this chunk; offset = offset + bytes.length. */
  readonly after: Pick<SourceCursor, 'identity' | 'anchor' | 'head' | 'size' | 'mtimeMs'>;
}

export interface CommitTotals {
  records: number;
  documents: number;
  rawBytes: number;
  bodyBytes: number;
  /** Complete JSONL lines that were not valid JSON. */
  malformed: number;
}

export interface CommitResult extends CommitTotals {
  /** The cursor of every source the batch moved, after the batch. */
  readonly cursors: ReadonlyArray<readonly [string, SourceCursor]>;
}

export function inlineSource(source: string, conversation: string): string {
  return `${source}:inline:${conversation}`;
}

export function documentId(record: number, offset: number): string {
  return `durable:${record}:${offset}`;
}

/** Statements and per-source state the commit needs; owned by the history actor. */
export class ChunkCommitter {
  private readonly insertRecord;
  private readonly existingRecord;
  private readonly insertDocument;
  private readonly insertRef;

  constructor(
    db: Db,
    private readonly conversations: ConversationIndex,
    private readonly sources: SourceRows,
    private readonly cursorOf: (source: string) => SourceCursor,
    private readonly remember: (source: string, cursor: SourceCursor) => void,
  ) {
    this.insertRecord = db.prepare(
      "INSERT OR IGNORE INTO conversation_records (source, generation, offset, conversation, at, raw, body, part) VALUES (?, ?, ?, ?, ?, ?, '', NULL)",
    );
    this.existingRecord = db.prepare('SELECT id, raw FROM conversation_records WHERE source = ? AND generation = ? AND offset = ?');
    this.insertDocument = db.prepare(
      "INSERT INTO history_documents (id, kind, agent, at, body, folded, link, message, job, run, session, cursor) VALUES (?, ?, ?, ?, ?, '', '', NULL, ?, NULL, ?, ?)",
    );
    this.insertRef = db.prepare('INSERT INTO history_document_refs (doc, record, conversation, line) VALUES (?, ?, ?, ?)');
  }

  /**
   * Append one record; an identical record already present (a replay) is
   * reused, a different one is a conflict and fails the batch.
   */
  private appendRecord(source: string, generation: number, offset: number, conversation: string, at: number, raw: Uint8Array): number {
    const info = this.insertRecord.run(source, generation, offset, conversation, at, raw);
    if (info.changes > 0) return Number(info.lastInsertRowid);
    const existing = this.existingRecord.get(source, generation, offset) as { id: number; raw: Uint8Array };
    if (Buffer.compare(Buffer.from(existing.raw), Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)) !== 0) {
      throw new HistoryError('VERIFY_FAILED', `retained bytes at ${source} generation ${generation} offset ${offset} differ from the source`, {
        step: 'commit batch',
        path: source,
      });
    }
    return existing.id;
  }

  private addDocument(record: number, conversation: ConversationRow, segment: Segment, lineStart: number, at: number, totals: CommitTotals): void {
    const info = this.insertDocument.run(
      documentId(record, segment.offset),
      conversation.kind,
      conversation.agent,
      at,
      segment.text,
      conversation.job,
      conversation.session,
      String(lineStart),
    );
    this.insertRef.run(info.lastInsertRowid, record, conversation.rowid, lineStart);
    totals.documents++;
    totals.bodyBytes += segment.text.length;
  }

  commit(chunk: CommitChunk, totals: CommitTotals): void {
    const previous = this.cursorOf(chunk.source);
    const sameGeneration = previous.generation === chunk.generation;
    const own = this.conversations.get(chunk.conversation);
    if (own === undefined) throw new HistoryError('INTERNAL', `source ${chunk.source} has no conversation ${chunk.conversation}`);
    if (chunk.project !== null) this.conversations.setProject(own.id, chunk.project);
    if (chunk.hints.parent !== null) this.conversations.setParent(own.id, chunk.hints.parent);

    const fallbackAt = Math.trunc(chunk.after.mtimeMs);
    const routed = routeSegments(chunk.segments, {
      own: own.id,
      route: sameGeneration ? previous.route : null,
      lineStart: sameGeneration ? previous.lineStart : 0,
      at: (sameGeneration ? previous.at : null) ?? fallbackAt,
    });
    const recordId = this.appendRecord(chunk.source, chunk.generation, chunk.offset, own.id, routed.recordAt, chunk.bytes);
    totals.records++;
    totals.rawBytes += chunk.bytes.length;
    totals.malformed += chunk.hints.malformed;

    for (const run of routed.runs) {
      let record = recordId;
      let conversation = own;
      if (run.route !== own.id) {
        // Lines of another conversation (an inline sidechain) also get a record of their own.
        conversation = this.conversations.ensure({ id: run.route, agent: own.agent, session: own.session, parent: own.id, kind: own.kind }, own.project);
        const raw = chunk.bytes.subarray(run.start - chunk.offset, run.end - chunk.offset);
        record = this.appendRecord(inlineSource(chunk.source, run.route), chunk.generation, run.start, run.route, run.at, raw);
        totals.records++;
      }
      for (const line of run.lines) {
        if (line.segment.text !== '') this.addDocument(record, conversation, line.segment, line.lineStart, line.at, totals);
      }
    }

    for (const link of chunk.hints.links) {
      const parent = this.conversations.get(link.parent);
      this.conversations.ensure({ id: link.child, agent: own.agent, session: own.session, parent: link.parent, kind: own.kind }, parent?.project ?? own.project);
      this.conversations.setParent(link.child, link.parent);
    }

    const cursor: SourceCursor = {
      generation: chunk.generation,
      offset: chunk.offset + chunk.bytes.length,
      ...chunk.after,
      route: routed.route,
      lineStart: routed.lineStart,
      at: routed.at,
    };
    this.sources.saveCursor(chunk.source, cursor);
    this.remember(chunk.source, cursor);
  }
}

interface RouteState {
  readonly own: string;
  /** Route of a line continuing into this chunk (null: own). */
  readonly route: string | null;
  readonly lineStart: number;
  readonly at: number;
}

interface RoutedLine {
  readonly segment: Segment;
  readonly lineStart: number;
  readonly at: number;
}

/** Consecutive segments of one conversation. */
interface Run {
  readonly route: string;
  readonly start: number;
  end: number;
  at: number;
  readonly lines: RoutedLine[];
}

/**
 * Resolve each segment's conversation (a continuation follows its line), line
 * start and time, and group consecutive segments of one conversation. Returns
 * the routing state a following chunk continues from.
 */
export function routeSegments(segments: readonly Segment[], state: RouteState) {
  const runs: Run[] = [];
  let route = state.route;
  let lineStart = state.lineStart;
  let at = state.at;
  for (const segment of segments) {
    const resolved = (segment.continuation ? route : segment.route) ?? state.own;
    const start = segment.continuation ? lineStart : segment.offset;
    at = Math.trunc(segment.at ?? at);
    const last = runs.at(-1);
    if (last !== undefined && last.route === resolved) {
      last.end = segment.offset + segment.length;
      last.at = at;
      last.lines.push({ segment, lineStart: start, at });
    } else {
      runs.push({ route: resolved, start: segment.offset, end: segment.offset + segment.length, at, lines: [{ segment, lineStart: start, at }] });
    }
    route = segment.complete ? null : resolved === state.own ? null : resolved;
    lineStart = segment.complete ? segment.offset + segment.length : start;
  }
  return { runs, recordAt: at, route, lineStart, at };
}
