// Reindex, store side: reset derived search data and rebuild it from the
// retained records. Derived data is the only thing this module deletes
// (reviewed in test/retention.test.ts): search documents whose id starts with
// `durable:` (they are derived from records), their refs, spans and tags. Records,
// legacy message/decision/run documents and cursors of capture stay.
//
// The reindex state lives in history_cursors under `reindex`, so a crash in
// the middle resumes where it stopped. Documents and records captured after
// the reindex started are above its high-water marks and are left alone.

import type { FileSourceRow, ReindexProgress, RetainedRecord } from '../../protocols/history.ts';
import { LINE_FORMATS } from '../../protocols/records.ts';
import { type Db, hasTable } from './open.ts';
import { prepared } from './statements.ts';

export const REINDEX_KEY = 'reindex';
export const REINDEX_DONE_KEY = 'reindex-done';

/** File source formats whose records are replayed through the parsers ('jsonl' is the legacy name). */
export const FILE_FORMATS = [...LINE_FORMATS, 'jsonl'] as const;

const CURSOR_VALUE = 'SELECT cursor FROM history_cursors WHERE source = ?';

/** The reindex in progress, or null (read before every batch, so its statement is cached). */
export function reindexProgress(db: Db): ReindexProgress | null {
  const text = prepared(db, CURSOR_VALUE).pluck().get(REINDEX_KEY) as string | undefined;
  return text === undefined ? null : (JSON.parse(text) as ReindexProgress);
}

export function lastReindex(db: Db): number | null {
  const text = prepared(db, CURSOR_VALUE).pluck().get(REINDEX_DONE_KEY) as string | undefined;
  return text === undefined ? null : Number(text);
}

/** Written after every rebuild batch, so its statement is cached. */
const SAVE_CURSOR = 'INSERT INTO history_cursors (source, cursor) VALUES (?, ?) ON CONFLICT(source) DO UPDATE SET cursor = excluded.cursor';

export function saveReindexProgress(db: Db, progress: ReindexProgress | null): void {
  if (progress === null) {
    const done = reindexProgress(db);
    db.prepare('DELETE FROM history_cursors WHERE source = ?').run(REINDEX_KEY);
    if (done !== null) prepared(db, SAVE_CURSOR).run(REINDEX_DONE_KEY, String(done.requestedAt));
    return;
  }
  prepared(db, SAVE_CURSOR).run(REINDEX_KEY, JSON.stringify(progress));
}

export function beginReindex(db: Db, requestedAt: number): ReindexProgress {
  const one = (sql: string): number => (db.prepare(sql).pluck().get() as number | null) ?? 0;
  const progress: ReindexProgress = {
    phase: 'reset',
    requestedAt,
    maxDocument: one('SELECT max(rowid) FROM history_documents'),
    maxRecord: one('SELECT max(id) FROM conversation_records'),
    source: '',
    file: null,
    generation: 0,
    offset: 0,
    route: null,
    lineStart: 0,
    at: null,
    midLine: false,
    carry: '',
    stage: 'files',
    afterRecord: 0,
    rebuilt: 0,
  };
  saveReindexProgress(db, progress);
  return progress;
}

/** Delete up to `limit` derived documents from before the reindex. Returns how many were deleted. */
export function resetDerivedStep(db: Db, progress: ReindexProgress, limit: number): number {
  const rows = db
    .prepare("SELECT rowid, id FROM history_documents WHERE id LIKE 'durable:%' AND rowid <= ? LIMIT ?")
    .all(progress.maxDocument, limit) as Array<{ rowid: number; id: string }>;
  // The document goes first: its FTS delete trigger reads the indexed text, which a span document derives through its span and refs.
  const deleteDocument = db.prepare('DELETE FROM history_documents WHERE rowid = ?');
  const deleteRef = db.prepare('DELETE FROM history_document_refs WHERE doc = ?');
  const deleteTags = db.prepare('DELETE FROM history_tags WHERE id = ?');
  const deleteSpan = hasTable(db, 'history_document_spans') ? db.prepare('DELETE FROM history_document_spans WHERE doc = ?') : null;
  for (const row of rows) {
    deleteDocument.run(row.rowid);
    deleteRef.run(row.rowid);
    deleteSpan?.run(row.rowid);
    deleteTags.run(row.id);
  }
  return rows.length;
}

/** The next file source after `after` (id order) that has records. */
export function nextFileSource(db: Db, after: string): FileSourceRow | undefined {
  return db
    .prepare(
      `SELECT s.id, s.path, s.conversation, coalesce(c.session, '') AS session, s.format
       FROM conversation_sources s LEFT JOIN conversations c ON c.id = s.conversation
       WHERE s.id > ? AND s.format IN (${FILE_FORMATS.map((f) => `'${f}'`).join(', ')})
         AND EXISTS (SELECT 1 FROM conversation_records r WHERE r.source = s.id)
       ORDER BY s.id LIMIT 1`,
    )
    .get(after) as FileSourceRow | undefined;
}

/** Records of one source from (generation, offset) on, up to the reindex high-water mark. */
export function recordsFrom(db: Db, source: string, generation: number, offset: number, maxRecord: number, limit: number): RetainedRecord[] {
  return db
    .prepare(
      `SELECT id, source, generation, offset, conversation, at, raw, part FROM conversation_records
       WHERE source = ? AND (generation > ? OR (generation = ? AND offset >= ?)) AND id <= ?
       ORDER BY generation, offset LIMIT ?`,
    )
    .all(source, generation, generation, offset, maxRecord, limit) as RetainedRecord[];
}

/**
 * Records that belong to no file source (provider rows, legacy bridge records), by id.
 * A context event's routed copy (`<file source>:event:<conversation>`) belongs to its
 * file source: the files stage derives its documents, as it does for inline copies.
 */
export function otherRecordsAfter(db: Db, after: number, maxRecord: number, limit: number): RetainedRecord[] {
  const formats = FILE_FORMATS.map((f) => `'${f}'`).join(', ');
  return db
    .prepare(
      `SELECT id, source, generation, offset, conversation, at, raw, part FROM conversation_records r
       WHERE id > ? AND id <= ? AND source NOT LIKE '%:inline:%'
         AND NOT EXISTS (SELECT 1 FROM conversation_sources s WHERE s.id = r.source AND s.format IN (${formats}))
         AND NOT (instr(r.source, ':event:') > 0
                  AND EXISTS (SELECT 1 FROM conversation_sources s WHERE s.id = substr(r.source, 1, instr(r.source, ':event:') - 1) AND s.format IN (${formats})))
       ORDER BY id LIMIT ?`,
    )
    .all(after, maxRecord, limit) as RetainedRecord[];
}
