// One search document (the target of a hit's sourceLink, /api/history/<id>)
// with the retained record it was derived from: source, generation, offset,
// exact bytes, and the derived text search indexes (a span document's derived
// again from those bytes). Documents of history.db
// name their record through history_document_refs; legacy documents
// (`durable:<record>[:<line>]`) name it in their id.

import type { HistoryDocument } from '../../protocols/dashboard.ts';
import type { Db } from './open.ts';
import { hasTable } from './open.ts';
import type { RetainedRecord } from '../../protocols/history.ts';
import { documentTextSql } from './schema.ts';
import { prepared } from './statements.ts';

interface DocumentRow {
  readonly rowid: number;
  readonly id: string;
  readonly kind: string;
  readonly agent: string;
  readonly at: number;
  readonly body: string;
  readonly cursor: string | null;
}


const LEGACY_ID = /^durable:(\d{1,15})(?::(\d{1,15}))?$/;
const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

function refOf(db: Db, doc: DocumentRow): { record: number; line: number | null } | null {
  if (hasTable(db, 'history_document_refs')) {
    const ref = prepared(db, 'SELECT record, line FROM history_document_refs WHERE doc = ?').get(doc.rowid) as { record: number; line: number } | undefined;
    if (ref !== undefined) return ref;
  }
  const legacy = LEGACY_ID.exec(doc.id);
  if (legacy === null) return null;
  return { record: Number(legacy[1]), line: legacy[2] === undefined ? null : Number(legacy[2]) };
}

export function historyDocument(db: Db, id: string): HistoryDocument | null {
  if (!hasTable(db, 'history_documents')) return null;
  // A span document's text is derived from its bytes (schema.ts, DERIVED_TEXT_FTS_SQL).
  const text = documentTextSql(hasTable(db, 'history_document_spans'));
  const doc = prepared(db, `SELECT d.rowid AS rowid, d.id AS id, d.kind AS kind, d.agent AS agent, d.at AS at, ${text} AS body, d.cursor AS cursor FROM history_documents d WHERE d.id = ?`).get(id) as
    | DocumentRow
    | undefined;
  if (doc === undefined) return null;
  const ref = refOf(db, doc);
  const row =
    ref === null || !hasTable(db, 'conversation_records')
      ? undefined
      : (prepared(db, 'SELECT id, source, generation, offset, conversation, at, raw, part FROM conversation_records WHERE id = ?').get(ref.record) as RetainedRecord | undefined);
  const raw = row === undefined ? null : Buffer.from(row.raw.buffer, row.raw.byteOffset, row.raw.byteLength);
  return {
    id: doc.id,
    kind: doc.kind,
    agent: doc.agent,
    at: Math.trunc(doc.at),
    text: doc.body,
    conversation: row?.conversation ?? null,
    line: ref?.line ?? null,
    record:
      row === undefined || raw === null
        ? null
        : { id: row.id, source: row.source, generation: row.generation, offset: row.offset, at: Math.trunc(row.at), raw: raw.toString('base64'), text: decoder.decode(raw), part: row.part },
  };
}
