// What a store looks like to the search: history.db v1 (documents linked to
// their conversation through history_document_refs; in stores written since
// derived document text, span documents keep their text only as a recipe
// over their bytes), a migrated history.db (also holding legacy
// `durable:<recordId>` documents without refs), or a legacy bridge.db (no
// refs table; before its v8 upgrade not even the conversation tables). The SQL the engines run is assembled from these
// facts, so one code path serves every layout.
//
// Expressions take the SQL expression of the document's rowid (`d.rowid`
// when history_documents is joined as d, `f.rowid` in FTS windows that do
// not join it) and assume refs joined as `r` (see refJoin).

import type { Db } from '../open.ts';
import { hasTable } from '../open.ts';
import { documentTextSql } from '../schema.ts';
import { prepared } from '../statements.ts';

export interface Layout {
  readonly fts: boolean;
  readonly refs: boolean;
  readonly conversations: boolean;
  readonly records: boolean;
  readonly tags: boolean;
  readonly sessions: boolean;
  readonly bindings: boolean;
  readonly memberships: boolean;
  readonly projects: boolean;
  /** history_document_facets (agent, kind, at of every document, in a small table) exists. */
  readonly facets: boolean;
  /** history_document_facets has its (agent, doc) index: an agent filter can jump to that agent's newest document below a rowid. */
  readonly agentIndex: boolean;
  /** `LEFT JOIN history_document_refs r ...` for the document `doc`, or '' without refs. */
  refJoin(doc: string): string;
  /** The rowid of the document's conversation (NULL when it has none); one lookup for documents with refs. */
  conversationRowid(doc: string): string;
  /** With `d` joined: the captured line a document was derived from (fragments of one oversized line share it), or NULL. */
  readonly lineKey: string;
  /** With `d` joined: the source of the retained record behind the document, or NULL. */
  readonly recordSource: string;
  /** With `d` joined: the document's text (its body, or for a span document the text derived from its bytes). */
  readonly text: string;
}

const cache = new WeakMap<Db, { readonly schema: number; readonly layout: Layout }>();

/**
 * The layout of `db`, detected again only when its schema changed (a reader
 * open while the writer adds history_document_facets to an older store, or
 * while the migration creates the tables, starts using them).
 */
export function layoutOf(db: Db): Layout {
  const schema = prepared(db, 'PRAGMA schema_version').pluck().get() as number;
  let known = cache.get(db);
  if (known === undefined || known.schema !== schema) {
    known = { schema, layout: detect(db) };
    cache.set(db, known);
  }
  return known.layout;
}

/** Legacy documents name their record: `durable:<recordId>`. */
const LEGACY_RECORD = `CASE WHEN d.id GLOB 'durable:[0-9]*' THEN CAST(substr(d.id, 9) AS INTEGER) END`;

function detect(db: Db): Layout {
  const refs = hasTable(db, 'history_document_refs');
  const conversations = hasTable(db, 'conversations');
  const records = hasTable(db, 'conversation_records');
  // Only evaluated for documents without refs (legacy `durable:<recordId>` documents).
  const legacyConversation = (doc: string): string =>
    conversations && records
      ? `(SELECT c2.rowid FROM history_documents d2 JOIN conversation_records lr2 ON lr2.id = ${LEGACY_RECORD.replaceAll('d.id', 'd2.id')}
           JOIN conversations c2 ON c2.id = lr2.conversation WHERE d2.rowid = ${doc})`
      : 'NULL';
  const legacySource = records ? `(SELECT lr3.source FROM conversation_records lr3 WHERE lr3.id = ${LEGACY_RECORD})` : 'NULL';
  const refSource = '(SELECT lr4.source FROM conversation_records lr4 WHERE lr4.id = r.record)';
  return {
    fts: hasTable(db, 'history_fts'),
    refs,
    conversations,
    records,
    tags: hasTable(db, 'history_tags'),
    sessions: hasTable(db, 'history_sessions'),
    bindings: hasTable(db, 'conversation_bindings'),
    memberships: hasTable(db, 'conversation_memberships'),
    projects: hasTable(db, 'conversation_projects'),
    facets: hasTable(db, 'history_document_facets'),
    agentIndex: prepared(db, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'idx_history_document_facets_agent'").get() !== undefined,
    refJoin: (doc) => (refs ? `LEFT JOIN history_document_refs r ON r.doc = ${doc}` : ''),
    conversationRowid: (doc) => (refs ? `CASE WHEN r.doc IS NOT NULL THEN r.conversation ELSE ${legacyConversation(doc)} END` : legacyConversation(doc)),
    lineKey:
      refs && records
        ? `CASE WHEN r.doc IS NOT NULL THEN (SELECT lr5.source || char(0) || lr5.generation FROM conversation_records lr5 WHERE lr5.id = r.record) || char(0) || r.line END`
        : 'NULL',
    recordSource: refs ? `CASE WHEN r.doc IS NOT NULL THEN ${refSource} ELSE ${legacySource} END` : legacySource,
    text: documentTextSql(hasTable(db, 'history_document_spans')),
  };
}
