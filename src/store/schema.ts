// history.db schema version 1.
//
// The 14 legacy tables are declared exactly as agent-bridge 0.29.x declared
// them in bridge.db (docs/legacy-bridge-layout.md §4): the split migration
// copies their rows with rowids and verifies them by row hash, so a column,
// type or constraint that differs here would make a faithful copy impossible.
// Our own additions are separate tables and indexes, never new columns.

import { GENERATIONS_SQL } from './generations.ts';
import { DOCUMENT_TEXT_VIEW_SQL } from './document-text-schema.ts';
import { SOURCE_PATHS_SQL } from './source-paths-schema.ts';

export const SCHEMA_VERSION = 1;

/** The legacy history/conversation tables, in the order the migration copies them. */
export const LEGACY_TABLES = [
  'history_documents',
  'history_cursors',
  'history_files',
  'history_tags',
  'history_sessions',
  'history_pending',
  'conversations',
  'conversation_sources',
  'conversation_records',
  'conversation_parts',
  'conversation_projects',
  'conversation_memberships',
  'conversation_bindings',
  'conversation_envelopes',
] as const;

export type LegacyTable = (typeof LEGACY_TABLES)[number];

const HISTORY_TABLES_SQL = `
CREATE TABLE history_documents (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  agent TEXT NOT NULL,
  at INTEGER NOT NULL,
  body TEXT NOT NULL,
  folded TEXT NOT NULL,
  link TEXT NOT NULL,
  message TEXT,
  job TEXT,
  run TEXT,
  session TEXT,
  cursor TEXT
);
CREATE INDEX idx_history_time ON history_documents(at);
CREATE INDEX idx_history_session ON history_documents(session);
CREATE INDEX idx_history_job ON history_documents(job);
CREATE TABLE history_cursors (
  source TEXT PRIMARY KEY,
  cursor TEXT NOT NULL
);
CREATE TABLE history_files (
  path TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  agent TEXT NOT NULL,
  session TEXT,
  cwd TEXT NOT NULL,
  child TEXT,
  checked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE history_tags (
  id TEXT NOT NULL,
  type TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY(id, type, value)
);
CREATE INDEX idx_history_tags ON history_tags(type, value, id);
CREATE TABLE history_sessions (
  alias TEXT PRIMARY KEY,
  session TEXT NOT NULL,
  job TEXT
);
CREATE INDEX idx_history_sessions ON history_sessions(session, job);
CREATE TABLE history_pending (
  id TEXT NOT NULL,
  body TEXT NOT NULL,
  from_agent TEXT NOT NULL,
  from_name TEXT NOT NULL,
  from_id TEXT NOT NULL,
  recipient TEXT NOT NULL,
  to_target TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY(id, recipient)
);
`;

/**
 * The FTS layout of stores written before derived document text (below):
 * external-content FTS5 over history_documents.body, kept in step by
 * triggers. Such stores are read and written in this layout for good; new
 * stores only get it when asked (tests that check those stores keep working).
 */
const STORED_BODIES_FTS_SQL = `
CREATE VIRTUAL TABLE history_fts USING fts5(body, content='history_documents', content_rowid='rowid', tokenize='unicode61');
CREATE TRIGGER history_insert AFTER INSERT ON history_documents BEGIN
  INSERT INTO history_fts(rowid, body) VALUES (new.rowid, new.body);
END;
CREATE TRIGGER history_delete AFTER DELETE ON history_documents BEGIN
  INSERT INTO history_fts(history_fts, rowid, body) VALUES ('delete', old.rowid, old.body);
END;
CREATE TRIGGER history_update AFTER UPDATE ON history_documents BEGIN
  INSERT INTO history_fts(history_fts, rowid, body) VALUES ('delete', old.rowid, old.body);
  INSERT INTO history_fts(rowid, body) VALUES (new.rowid, new.body);
END;
`;

/**
 * The FTS layout of new stores: a document whose text derives from its
 * retained bytes alone (a Claude or Codex line, see src/text/span-text.ts)
 * keeps no copy of it. history_documents.body stays '' and
 * history_document_spans says where the text comes from: the segment's bytes
 * in its record (start and length in conversation_records.raw of the
 * document's refs.record) and its TextRecipe. Every other document (migrated
 * legacy documents, provider rows, bridge records) keeps its body.
 *
 * history_document_text is every document's text (the body, or the text
 * derived by history_span_text, a function each connection of ours
 * registers: src/store/open.ts; document-text-schema.ts, with the spans of
 * lines indexed whole, which begin in earlier records); it is the external content of history_fts,
 * so snippets, 'delete' and integrity checks see exactly the indexed text.
 * A span document is `durable:<record>:<offset>` with an empty body: the
 * writer indexes its text itself when it inserts it (src/store/appender.ts);
 * the triggers index every other document from its body, as in the older
 * layout (the migration's copy rebuilds FTS through them), and take any
 * document out of the index with the text it was indexed with (read before
 * the row goes, while its span and refs still exist).
 */
const DERIVED_TEXT_FTS_SQL = `
CREATE TABLE history_document_spans (
  doc INTEGER PRIMARY KEY,
  start INTEGER NOT NULL,
  length INTEGER NOT NULL,
  format TEXT NOT NULL,
  carry TEXT,
  trimmed INTEGER NOT NULL,
  reach TEXT
);
${DOCUMENT_TEXT_VIEW_SQL}
CREATE VIRTUAL TABLE history_fts USING fts5(body, content='history_document_text', content_rowid='doc', tokenize='unicode61');
CREATE TRIGGER history_insert AFTER INSERT ON history_documents WHEN new.body <> '' OR new.id NOT GLOB 'durable:*:*' BEGIN
  INSERT INTO history_fts(rowid, body) VALUES (new.rowid, new.body);
END;
CREATE TRIGGER history_delete BEFORE DELETE ON history_documents BEGIN
  INSERT INTO history_fts(history_fts, rowid, body) SELECT 'delete', t.doc, t.body FROM history_document_text t
    WHERE t.doc = old.rowid AND (old.body <> '' OR old.id NOT GLOB 'durable:*:*' OR EXISTS (SELECT 1 FROM history_document_spans s WHERE s.doc = old.rowid));
END;
CREATE TRIGGER history_update_before BEFORE UPDATE OF body, id ON history_documents BEGIN
  INSERT INTO history_fts(history_fts, rowid, body) SELECT 'delete', t.doc, t.body FROM history_document_text t
    WHERE t.doc = old.rowid AND (old.body <> '' OR old.id NOT GLOB 'durable:*:*' OR EXISTS (SELECT 1 FROM history_document_spans s WHERE s.doc = old.rowid));
END;
CREATE TRIGGER history_update AFTER UPDATE OF body, id ON history_documents BEGIN
  INSERT INTO history_fts(rowid, body) SELECT t.doc, t.body FROM history_document_text t
    WHERE t.doc = new.rowid AND (new.body <> '' OR new.id NOT GLOB 'durable:*:*' OR EXISTS (SELECT 1 FROM history_document_spans s WHERE s.doc = new.rowid));
END;
`;

const CONVERSATION_TABLES_SQL = `
CREATE TABLE conversations (
  id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  session TEXT NOT NULL,
  parent TEXT,
  project TEXT NOT NULL DEFAULT '',
  job TEXT,
  kind TEXT NOT NULL DEFAULT 'transcript'
);
CREATE INDEX idx_conversations_project ON conversations(project);
CREATE INDEX idx_conversations_parent ON conversations(parent);
CREATE TABLE conversation_sources (
  id TEXT PRIMARY KEY,
  path TEXT NOT NULL,
  conversation TEXT NOT NULL,
  format TEXT NOT NULL,
  generation INTEGER NOT NULL DEFAULT 0,
  offset INTEGER NOT NULL DEFAULT 0,
  identity TEXT NOT NULL DEFAULT '',
  anchor TEXT NOT NULL DEFAULT '',
  checked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE conversation_records (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL,
  generation INTEGER NOT NULL,
  offset INTEGER NOT NULL,
  conversation TEXT NOT NULL,
  at INTEGER NOT NULL,
  raw BLOB NOT NULL,
  body TEXT NOT NULL,
  part TEXT,
  UNIQUE(source, generation, offset)
);
CREATE INDEX idx_conversation_records ON conversation_records(conversation, id);
CREATE INDEX idx_conversation_parts ON conversation_records(part);
CREATE TRIGGER conversation_records_no_delete BEFORE DELETE ON conversation_records BEGIN
  SELECT RAISE(ABORT, 'conversation records are append-only');
END;
CREATE TRIGGER conversation_records_no_update BEFORE UPDATE ON conversation_records BEGIN
  SELECT RAISE(ABORT, 'conversation records are append-only');
END;
CREATE TABLE conversation_parts (
  source TEXT NOT NULL,
  part TEXT NOT NULL,
  revision TEXT NOT NULL,
  offset INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(source, part)
);
CREATE TABLE conversation_projects (
  project TEXT PRIMARY KEY,
  checked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE conversation_memberships (
  project TEXT NOT NULL,
  conversation TEXT NOT NULL,
  PRIMARY KEY(project, conversation)
);
CREATE TABLE conversation_bindings (
  session TEXT NOT NULL,
  agent TEXT NOT NULL,
  cwd TEXT NOT NULL,
  job TEXT,
  pending INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY(session, agent)
);
CREATE TABLE conversation_envelopes (
  id INTEGER PRIMARY KEY,
  message TEXT NOT NULL,
  recipient TEXT NOT NULL,
  UNIQUE(message, recipient)
);
`;

/** Migration bookkeeping (history.db only; see reference-implementation.md §4). */
const MIGRATION_TABLES_SQL = `
CREATE TABLE history_migration (
  version INTEGER PRIMARY KEY,
  snapshot TEXT,
  status TEXT NOT NULL,
  manifest TEXT
);
CREATE TABLE history_legacy_tail (
  source_id INTEGER PRIMARY KEY,
  target_id INTEGER NOT NULL
);
`;

/**
 * Our own tables (not part of the legacy set, never migrated from bridge.db).
 *
 * history_document_refs: for every document we derive from a retained record,
 * the record and the conversation it belongs to (by conversations.rowid). It
 * lets search filter by project, session ancestry and job without a tag row
 * per document; `line` is the source offset where the document's line starts,
 * so the fragments of one oversized line can be told apart from separate
 * lines. Derived data: a reindex clears and rebuilds it.
 */
const OWN_TABLES_SQL = `
CREATE TABLE history_document_refs (
  doc INTEGER PRIMARY KEY,
  record INTEGER NOT NULL,
  conversation INTEGER NOT NULL,
  line INTEGER NOT NULL
);
CREATE INDEX idx_history_document_refs_conversation ON history_document_refs(conversation, doc);
CREATE INDEX idx_conversation_sources_path ON conversation_sources(path);
CREATE INDEX idx_conversation_sources_identity ON conversation_sources(identity);
`;

/**
 * history_document_facets: the columns search filters read per FTS match
 * (agent, kind, at) of every document, in rows of a few bytes. Reading them
 * from history_documents costs a row of that wide table per match (five
 * times the time); the filters of a selective search check thousands of
 * matches. Derived data, kept equal to history_documents by triggers (so
 * every writer, the migration's copy and reindex included, keeps it). The
 * insert trigger is an upsert: an INSERT OR IGNORE that fires it imposes
 * IGNORE on a plain insert in the trigger, which would keep a stale row at a
 * reused rowid silently; DO UPDATE holds under every outer conflict policy.
 * Stores created before it get it, filled, when the writer opens them.
 */
export const FACETS_SQL = `
CREATE TABLE IF NOT EXISTS history_document_facets (
  doc INTEGER PRIMARY KEY,
  agent TEXT NOT NULL,
  kind TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS history_facets_insert AFTER INSERT ON history_documents BEGIN
  INSERT INTO history_document_facets (doc, agent, kind, at) VALUES (new.rowid, new.agent, new.kind, new.at)
    ON CONFLICT (doc) DO UPDATE SET agent = excluded.agent, kind = excluded.kind, at = excluded.at;
END;
CREATE TRIGGER IF NOT EXISTS history_facets_update AFTER UPDATE ON history_documents BEGIN
  UPDATE history_document_facets SET doc = new.rowid, agent = new.agent, kind = new.kind, at = new.at WHERE doc = old.rowid;
END;
CREATE TRIGGER IF NOT EXISTS history_facets_delete AFTER DELETE ON history_documents BEGIN
  DELETE FROM history_document_facets WHERE doc = old.rowid;
END;
`;

/**
 * The documents of each agent in rowid order: a search filtered by agent
 * jumps over the stretches of the index where that agent has no document
 * (capture clusters them: a backfill captures one agent's history after
 * another's), so a filter whose documents are all older than millions of
 * others costs a lookup, not a walk over every newer match
 * (search/fts.ts). Stores created before it get it when the writer opens
 * them.
 */
export const FACETS_INDEXES_SQL = `CREATE INDEX IF NOT EXISTS idx_history_document_facets_agent ON history_document_facets(agent, doc);`;

/** Fill history_document_facets of a store created before it (one statement, in the opening transaction). */
export const FACETS_FILL_SQL = `INSERT INTO history_document_facets (doc, agent, kind, at) SELECT rowid, agent, kind, at FROM history_documents`;

/**
 * history_conversation_stats: per conversation, the time of its first and
 * last retained record, how many records and raw bytes it has, and its
 * highest record id, so the dashboard lists conversations newest first,
 * keyset-paged, without aggregating every record. Derived from the
 * append-only conversation_records by an insert trigger (every writer, the
 * migration's copy included, keeps it; an ignored duplicate insert fires
 * nothing). Stores created before it get it, filled, when the writer opens them.
 */
export const STATS_SQL = `
CREATE TABLE IF NOT EXISTS history_conversation_stats (
  conversation TEXT PRIMARY KEY,
  first_at INTEGER NOT NULL,
  last_at INTEGER NOT NULL,
  records INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  last_id INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_history_conversation_stats_last ON history_conversation_stats(last_at, conversation);
CREATE TRIGGER IF NOT EXISTS history_conversation_stats_insert AFTER INSERT ON conversation_records BEGIN
  INSERT INTO history_conversation_stats (conversation, first_at, last_at, records, bytes, last_id)
    VALUES (new.conversation, new.at, new.at, 1, length(new.raw), new.id)
    ON CONFLICT (conversation) DO UPDATE SET first_at = min(first_at, excluded.first_at), last_at = max(last_at, excluded.last_at),
      records = records + 1, bytes = bytes + excluded.bytes, last_id = max(last_id, excluded.last_id);
END;
`;

/** Fill history_conversation_stats of a store created before it (one statement, in the opening transaction). */
export const STATS_FILL_SQL = `INSERT INTO history_conversation_stats (conversation, first_at, last_at, records, bytes, last_id)
  SELECT conversation, min(at), max(at), count(*), coalesce(sum(length(raw)), 0), max(id) FROM conversation_records GROUP BY conversation`;

/**
 * Our own indexes on legacy tables that stores created before them lack:
 * created when the writer opens the store (IF NOT EXISTS; no column changes).
 *   idx_conversations_session  a session bound to a job tags its conversations
 *                              (src/store/bindings.ts); job and session filters.
 */
export const OWN_INDEXES_SQL = `
CREATE INDEX IF NOT EXISTS idx_conversations_session ON conversations(session);
`;

/** SQL of a document's text with history_documents joined as `d`: its body, or (in a store with span documents) its derived text. */
export function documentTextSql(spans: boolean): string {
  return spans ? "coalesce((SELECT t.body FROM history_document_text t WHERE t.doc = d.rowid), '')" : 'd.body';
}

export interface SchemaParts {
  readonly fts: boolean;
  /** The layout of stores written before derived document text: every body stored (default false). */
  readonly storedBodies?: boolean;
}

/** The full DDL of a fresh version-1 store. */
export function schemaSql(parts: SchemaParts): string {
  const fts = !parts.fts ? '' : parts.storedBodies === true ? STORED_BODIES_FTS_SQL : DERIVED_TEXT_FTS_SQL;
  return [HISTORY_TABLES_SQL, fts, CONVERSATION_TABLES_SQL, MIGRATION_TABLES_SQL, OWN_TABLES_SQL, FACETS_SQL, FACETS_INDEXES_SQL, STATS_SQL, GENERATIONS_SQL, OWN_INDEXES_SQL, SOURCE_PATHS_SQL].join('\n');
}
