// Appending retained records and their search documents. Shared by every
// commit path (file chunks, provider rows, reindex). Records are append-only:
// an identical record already present is reused (a replay after a crash or a
// reindex), a different one at the same (source, generation, offset) is a
// conflict that fails the whole transaction.

import { HistoryError } from '../../protocols/errors.ts';
import type { Agent, Kind } from '../../protocols/records.ts';
import type { ConversationRow } from './conversations.ts';
import type { Db } from './open.ts';

export interface DocumentInput {
  readonly text: string;
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
}

export interface AppendTotals {
  records: number;
  documents: number;
  rawBytes: number;
  bodyBytes: number;
}

export function documentId(record: number, offset: number): string {
  return `durable:${record}:${offset}`;
}

export class RecordAppender {
  private readonly insertRecord;
  private readonly existingRecord;
  private readonly insertDocument;
  private readonly insertRef;

  constructor(db: Db) {
    this.insertRecord = db.prepare(
      "INSERT OR IGNORE INTO conversation_records (source, generation, offset, conversation, at, raw, body, part) VALUES (?, ?, ?, ?, ?, ?, '', ?)",
    );
    this.existingRecord = db.prepare('SELECT id, conversation, raw FROM conversation_records WHERE source = ? AND generation = ? AND offset = ?');
    this.insertDocument = db.prepare(
      "INSERT OR IGNORE INTO history_documents (id, kind, agent, at, body, folded, link, message, job, run, session, cursor) VALUES (?, ?, ?, ?, ?, '', '', ?, ?, ?, ?, ?)",
    );
    this.insertRef = db.prepare('INSERT OR IGNORE INTO history_document_refs (doc, record, conversation, line) VALUES (?, ?, ?, ?)');
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
    if (existing.conversation !== record.conversation || Buffer.compare(Buffer.from(existing.raw), raw) !== 0) {
      throw new HistoryError(
        'VERIFY_FAILED',
        `retained record at ${record.source} generation ${record.generation} offset ${record.offset} differs from what was read now`,
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

  /** Add a document for a record (a document that exists already is kept). */
  addDocument(record: number, conversation: ConversationRow, doc: DocumentInput, totals: AppendTotals): void {
    if (doc.text === '') return;
    const info = this.insertDocument.run(
      documentId(record, doc.offset),
      doc.kind ?? conversation.kind,
      doc.agent ?? conversation.agent,
      Math.trunc(doc.at),
      doc.text,
      doc.message ?? null,
      doc.job === undefined ? conversation.job : doc.job,
      doc.run ?? null,
      doc.session === undefined ? conversation.session : doc.session,
      String(doc.line),
    );
    if (info.changes === 0) return;
    this.insertRef.run(info.lastInsertRowid, record, conversation.rowid, doc.line);
    totals.documents++;
    totals.bodyBytes += doc.text.length;
  }
}
