// Appending retained records and their search documents. Shared by every
// commit path (file chunks, provider rows, reindex). Records are append-only:
// an identical record already present is reused (a replay after a crash or a
// reindex), a different one at the same (source, generation, offset) is a
// conflict that fails the whole transaction.
//
// Documents are queued by addDocument and inserted by flushDocuments, many
// rows per statement (src/sqlite/multi-row.ts says why: FTS5 makes a segment
// per statement savepoint). The writer flushes once per transaction, after
// every record of the batch (src/store/writer.ts), so a batch of up to
// DOCUMENT_GROUP documents makes one segment, as plain FTS5 inserts committed
// together would; a flush per chunk made several, and more merge work.

import { HistoryError } from '../../protocols/errors.ts';
import type { AppendTotals } from '../../protocols/history.ts';
import type { DocumentInput, DocumentSpan } from '../../protocols/rows.ts';
import type { SegmentText } from '../../protocols/segment-texts.ts';
import { runOfConversation } from '../keys/bridge.ts';
import type { ConversationRow } from './conversations.ts';
import { MultiRowInsert } from '../sqlite/multi-row.ts';
import { type Db, hasTable } from './open.ts';
import { lineRecordsWhere } from './document-text-schema.ts';

export function documentId(record: number, offset: number): string {
  return `durable:${record}:${offset}`;
}

/** The one document agent-bridge 0.29.x derived from a whole record (the migration copies it as it was). */
export function legacyDocumentId(record: number): string {
  return `durable:${record}`;
}

/** The ids of every document of one record lie in [low, high) (':' + 1 = ';'). */
export function recordDocumentRange(record: number): readonly [string, string] {
  return [`durable:${record}:`, `durable:${record};`];
}

/** Rows per multi-row document insert (10 parameters each, far below SQLite's limit). */
const DOCUMENT_GROUP = 128;

interface PendingDocument {
  readonly id: string;
  readonly params: readonly unknown[];
  readonly record: number;
  readonly conversation: number;
  readonly line: number;
  /** The text's length: UTF-8 bytes when it came as bytes, UTF-16 units when it came as a string. */
  readonly length: number;
  /** Stored as a span (its text indexed here, not kept): the text and where it comes from. */
  readonly derived: { readonly text: SegmentText; readonly span: DocumentSpan } | null;
}

export class RecordAppender {
  private readonly insertRecord;
  private readonly existingRecord;
  private readonly insertDocuments;
  private readonly insertSpans;
  private readonly insertTexts;
  private readonly insertRef;
  private readonly lineRecords;
  /** The store keeps derivable text as spans (schema.ts, DERIVED_TEXT_FTS_SQL), not as bodies. */
  private readonly spans: boolean;
  private pending: PendingDocument[] = [];

  constructor(db: Db) {
    this.spans = hasTable(db, 'history_document_spans');
    this.insertRecord = db.prepare(
      "INSERT OR IGNORE INTO conversation_records (source, generation, offset, conversation, at, raw, body, part) VALUES (?, ?, ?, ?, ?, ?, '', ?)",
    );
    this.existingRecord = db.prepare('SELECT id, conversation, raw FROM conversation_records WHERE source = ? AND generation = ? AND offset = ?');
    this.insertRef = db.prepare('INSERT OR IGNORE INTO history_document_refs (doc, record, conversation, line) VALUES (?, ?, ?, ?)');
    // A text may come as UTF-8 bytes (a view on a parsed chunk's texts, protocols/segment-texts.ts): bound as text.
    this.insertDocuments = new MultiRowInsert(
      db,
      'INSERT OR IGNORE INTO history_documents (id, kind, agent, at, body, folded, link, message, job, run, session, cursor)',
      "(?, ?, ?, ?, CAST(? AS TEXT), '', '', ?, ?, ?, ?, ?)",
      'RETURNING rowid, id',
    );
    this.insertSpans = new MultiRowInsert(db, 'INSERT INTO history_document_spans (doc, start, length, format, carry, trimmed, reach)', '(?, ?, ?, ?, ?, ?, ?)');
    this.lineRecords = db.prepare(
      `SELECT x.offset, length(x.raw) AS size FROM conversation_records cr JOIN conversation_records x ON ${lineRecordsWhere('cr.offset + ?')} WHERE cr.id = ? ORDER BY x.offset`,
    );
    this.insertTexts = new MultiRowInsert(db, 'INSERT INTO history_fts (rowid, body)', '(?, CAST(? AS TEXT))');
  }

  /** Append a record (or find the identical one) and return its id. */
  append(
    record: { source: string; generation: number; offset: number; conversation: string; at: number; raw: Uint8Array; part: string | null },
    totals: AppendTotals,
  ): number {
    const info = this.insertRecord.run(record.source, record.generation, record.offset, record.conversation, Math.trunc(record.at), record.raw, record.part);
    if (info.changes > 0) {
      totals.records++;
      totals.rawBytes += record.raw.length;
      return Number(info.lastInsertRowid);
    }
    const existing = this.existingRecord.get(record.source, record.generation, record.offset) as { id: number; conversation: string; raw: Uint8Array };
    const raw = Buffer.from(record.raw.buffer, record.raw.byteOffset, record.raw.byteLength);
    const sameBytes = Buffer.compare(Buffer.from(existing.raw), raw) === 0;
    if (existing.conversation !== record.conversation || !sameBytes) {
      const what = sameBytes ? `belongs to conversation ${existing.conversation}, not ${record.conversation}` : 'differs from what was read now';
      throw new HistoryError(
        'VERIFY_FAILED',
        `retained record at ${record.source} generation ${record.generation} offset ${record.offset} ${what}`,
        { step: 'append record', path: record.source },
      );
    }
    return existing.id;
  }

  /** The id of the record at (source, generation, offset) if it holds exactly `raw`. */
  find(source: string, generation: number, offset: number, raw: Uint8Array): number | undefined {
    const existing = this.existingRecord.get(source, generation, offset) as { id: number; raw: Uint8Array } | undefined;
    if (existing === undefined) return undefined;
    return Buffer.compare(Buffer.from(existing.raw), Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)) === 0 ? existing.id : undefined;
  }

  /** Queue a document for a record (inserted by the next flushDocuments; one that exists already is kept). */
  addDocument(record: number, conversation: ConversationRow, doc: DocumentInput, totals: AppendTotals): void {
    if (doc.text.length === 0) return;
    const id = documentId(record, doc.offset);
    const derived = this.spans && doc.span !== undefined && this.derivable(record, doc.span) ? { text: doc.text, span: doc.span } : null;
    this.pending.push({
      id,
      derived,
      params: [
        id,
        doc.kind ?? conversation.kind,
        doc.agent ?? conversation.agent,
        Math.trunc(doc.at),
        derived === null ? doc.text : '',
        doc.message ?? null,
        doc.job === undefined ? conversation.job : doc.job,
        doc.run ?? runOfConversation(conversation.id),
        doc.session === undefined ? conversation.session : doc.session,
        String(doc.line),
      ],
      record,
      conversation: conversation.rowid,
      line: doc.line,
      length: doc.text.length,
    });
    if (this.pending.length >= DOCUMENT_GROUP) this.flushDocuments(totals);
  }

  /**
   * Whether the view can read the span's bytes again (document-text-schema.ts):
   * always inside its record; for a span that begins in earlier records
   * (a line indexed whole), when the records of its source generation hold
   * the line end to end, with no gap and no overlap. They are appended before
   * their documents, in this transaction or an earlier one.
   */
  private derivable(record: number, span: DocumentSpan): boolean {
    if (span.start >= 0) return true;
    // In file order, the document's own record last.
    const parts = this.lineRecords.all(span.start, record) as Array<{ offset: number; size: number }>;
    const first = parts[0];
    const own = parts.at(-1);
    if (first === undefined || own === undefined) return false;
    let end = first.offset;
    for (const part of parts) {
      if (part.offset !== end) return false;
      end = part.offset + part.size;
    }
    const lineStart = own.offset + span.start;
    return first.offset <= lineStart && lineStart + span.length <= end;
  }

  /** Insert the queued documents (at most DOCUMENT_GROUP: addDocument flushes at that size) and their refs, in the caller's transaction. */
  flushDocuments(totals: AppendTotals): void {
    const group = this.pending;
    if (group.length === 0) return;
    this.pending = [];
    const byId = new Map<string, PendingDocument>();
    const params: unknown[] = [];
    for (const doc of group) {
      if (!byId.has(doc.id)) byId.set(doc.id, doc);
      params.push(...doc.params);
    }
    const inserted = this.insertDocuments.statement(group.length).all(...params) as Array<{ rowid: number; id: string }>;
    const spans: unknown[] = [];
    const texts: unknown[] = [];
    for (const row of inserted) {
      const doc = byId.get(row.id) as PendingDocument;
      this.insertRef.run(row.rowid, doc.record, doc.conversation, doc.line);
      if (doc.derived !== null) {
        const { span, text } = doc.derived;
        spans.push(row.rowid, span.start, span.length, span.recipe.format, span.recipe.carry, span.recipe.trimmed ? 1 : 0, span.recipe.reach ?? null);
        texts.push(row.rowid, text);
      }
      totals.documents++;
      totals.bodyBytes += doc.length;
    }
    // Span documents keep no body, so no trigger indexes them: their text goes into the index here,
    // in one statement per group (one FTS5 segment, as above), and their recipes beside them.
    if (texts.length > 0) {
      const rows = texts.length / 2;
      this.insertSpans.statement(rows).run(...spans);
      this.insertTexts.statement(rows).run(...texts);
    }
  }

  /** Drop queued documents (their transaction rolled back). */
  discardDocuments(): void {
    this.pending = [];
  }

  /** Throws if documents are still queued: every transaction must flush what it queued before it commits. */
  assertFlushed(): void {
    if (this.pending.length > 0) throw new Error(`${this.pending.length} queued documents were not flushed before the transaction ended`);
  }
}
