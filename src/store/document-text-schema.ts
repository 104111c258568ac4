// history_document_text: every document's text, the external content of
// history_fts (schema.ts, DERIVED_TEXT_FTS_SQL says why it is a view). A
// document with a stored body is its body; a span document's text is derived
// again from retained bytes by history_span_text (src/store/open.ts
// registers it on every connection of ours) with the span's recipe:
//   start >= 0  the span lies in the document's own record;
//   start < 0   a line indexed whole (TextRecipe.reach 'whole'): it began
//               -start bytes before its record, and its bytes are read from
//               the records of the same source generation that hold them,
//               end to end (the writer checks they do before it stores such a
//               span: RecordAppender.addDocument).
// The bytes of several records are joined as text and cast back: SQLite
// neither checks nor converts UTF-8 in a CAST or in group_concat (lengths,
// not NULs, bound every value), so the join is byte-exact.

import type { Db } from '../sqlite/open.ts';

/**
 * With `x` the candidate records and `cr` the document's record: the records
 * of cr's source generation from the last one that begins at or before the
 * file offset `lineStart` (an SQL expression) through cr. Both the view and
 * the writer's check use it, so they read the same records.
 */
export function lineRecordsWhere(lineStart: string): string {
  return `x.source = cr.source AND x.generation = cr.generation AND x.offset <= cr.offset
    AND x.offset >= (SELECT max(y.offset) FROM conversation_records y WHERE y.source = cr.source AND y.generation = cr.generation AND y.offset <= ${lineStart})`;
}

const LINE_START = 'cr.offset + s.start';
const LINE_END = 'cr.offset + s.start + s.length';

/** The bytes of a span that begins before its record: each record's part of [line start, line end), in file order. */
const WHOLE_LINE_BYTES = `(SELECT CAST(group_concat(CAST(substr(x.raw, max(${LINE_START} - x.offset, 0) + 1, ${LINE_END} - max(${LINE_START}, x.offset)) AS TEXT), '' ORDER BY x.offset) AS BLOB)
    FROM conversation_records x WHERE ${lineRecordsWhere(LINE_START)})`;

export const DOCUMENT_TEXT_VIEW_SQL = `CREATE VIEW history_document_text (doc, body) AS
  SELECT d.rowid, CASE WHEN s.doc IS NULL THEN d.body ELSE history_span_text(
    CASE WHEN s.start >= 0 THEN substr(cr.raw, s.start + 1, s.length) ELSE ${WHOLE_LINE_BYTES} END,
    s.format, s.carry, s.trimmed, s.reach) END
  FROM history_documents d
  LEFT JOIN history_document_spans s ON s.doc = d.rowid
  LEFT JOIN history_document_refs r ON r.doc = s.doc
  LEFT JOIN conversation_records cr ON cr.id = r.record;`;

/**
 * Bring a store whose spans predate TextRecipe.reach to this layout, in the
 * writer's opening transaction: the column, and the view that reads it. A
 * view holds no data: created again, it derives every existing span's text
 * exactly as before (start >= 0, reach NULL), and lines indexed whole from
 * now on.
 */
export function upgradeDocumentText(db: Db): void {
  const columns = db.prepare("SELECT name FROM pragma_table_info('history_document_spans')").pluck().all() as string[];
  if (columns.length === 0 || columns.includes('reach')) return;
  db.exec('ALTER TABLE history_document_spans ADD COLUMN reach TEXT');
  db.exec('DROP VIEW history_document_text');
  db.exec(DOCUMENT_TEXT_VIEW_SQL);
}
