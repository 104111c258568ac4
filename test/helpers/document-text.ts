// A document's text as a test reads it: the body, or in stores that keep
// span documents (schema.ts, DERIVED_TEXT_FTS_SQL) the history_document_text
// view, which needs a connection of ours (openReader/openWriter register the
// function that derives the text).

import type Database from 'better-sqlite3';

/** SQL selecting `<columns>, <text> AS body` from history_documents `d`, with `where` appended. */
export function documentsWithText(db: Database.Database, columns: string, where = ''): string {
  const derived = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'history_document_text'").get() !== undefined;
  return derived
    ? `SELECT ${columns}, t.body AS body FROM history_documents d JOIN history_document_text t ON t.doc = d.rowid ${where}`
    : `SELECT ${columns}, d.body AS body FROM history_documents d ${where}`;
}
