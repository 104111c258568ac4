// What the mirror reads from history.db, on its own read-only connection
// (never the writer's): projects, a project's conversations and their
// metadata, and a conversation's records after a cursor with the documents
// derived from them. Metadata reads never touch raw bytes or bodies; records
// are read once, when they are copied.

import { legacyDocumentId, recordDocumentRange } from '../store/appender.ts';
import type { Db } from '../store/open.ts';
import { hasTable } from '../store/open.ts';
import { lastReindex, reindexProgress } from '../store/reindex-store.ts';
import { documentTextSql } from '../store/schema.ts';
import type { RetainedRecord } from '../../protocols/history.ts';
import type { ConversationInfo } from '../../protocols/search.ts';

/** A conversation row with its central rowid (the sweep's cursor). */
export interface ConversationMeta extends ConversationInfo {
  readonly rowid: number;
}

export interface BindingMeta {
  readonly session: string;
  readonly agent: string;
  readonly cwd: string;
  readonly job: string | null;
  readonly pending: number;
}

export interface AliasMeta {
  readonly alias: string;
  readonly session: string;
  readonly job: string | null;
}

/** A retained record with every column (the replica copies body too). */
export interface RecordRow extends RetainedRecord {
  readonly body: string;
}

export interface DocumentRow {
  readonly rowid: number;
  readonly id: string;
  readonly kind: string;
  readonly agent: string;
  readonly at: number;
  readonly body: string;
  readonly folded: string;
  readonly link: string;
  readonly message: string | null;
  readonly job: string | null;
  readonly run: string | null;
  readonly session: string | null;
  readonly cursor: string | null;
}

export interface DocumentRef {
  readonly record: number;
  /** The id of the conversation the document belongs to. */
  readonly conversation: string;
  readonly line: number;
}

const CONVERSATION_COLUMNS = 'c.rowid AS rowid, c.id, c.agent, c.session, c.parent, c.project, c.job, c.kind';

export class CentralView {
  private readonly version;
  private readonly projects;
  private readonly own;
  private readonly members;
  private readonly byId;
  private readonly binding;
  private readonly aliases;
  private readonly last;
  private readonly countAfter;
  private readonly records;
  private readonly documents;
  private readonly legacyDocument;
  private readonly documentBytes;
  private readonly ref;
  private readonly tags;
  private readonly recordKey;

  constructor(readonly db: Db) {
    const memberships = hasTable(db, 'conversation_memberships');
    this.version = db.prepare('PRAGMA data_version').pluck();
    this.projects = db
      .prepare(
        // conversation_projects names every project a conversation, binding or membership was given.
        `SELECT project FROM conversation_projects WHERE project > @after
         ${memberships ? 'UNION SELECT DISTINCT project FROM conversation_memberships WHERE project > @after' : ''}
         ORDER BY 1 LIMIT @limit`,
      )
      .pluck();
    this.own = db.prepare(`SELECT ${CONVERSATION_COLUMNS} FROM conversations c WHERE c.project = ? AND c.rowid > ? ORDER BY c.rowid LIMIT ?`);
    this.members = memberships
      ? db.prepare(
          `SELECT ${CONVERSATION_COLUMNS} FROM conversation_memberships m JOIN conversations c ON c.id = m.conversation
           WHERE m.project = ? AND m.conversation > ? ORDER BY m.conversation LIMIT ?`,
        )
      : null;
    this.byId = db.prepare(`SELECT ${CONVERSATION_COLUMNS} FROM conversations c WHERE c.id = ?`);
    this.binding = db.prepare('SELECT session, agent, cwd, job, pending FROM conversation_bindings WHERE session = ? AND agent = ?');
    this.aliases = db.prepare('SELECT alias, session, job FROM history_sessions WHERE session = ? ORDER BY alias');
    this.last = db.prepare('SELECT max(id) FROM conversation_records WHERE conversation = ?').pluck();
    this.countAfter = db.prepare('SELECT count(*) FROM conversation_records WHERE conversation = ? AND id > ?').pluck();
    this.records = db.prepare(
      'SELECT id, source, generation, offset, conversation, at, raw, body, part FROM conversation_records WHERE conversation = ? AND id > ? ORDER BY id LIMIT ?',
    );
    // A span document keeps no body centrally (schema.ts, DERIVED_TEXT_FTS_SQL): the replica gets its derived text as the body.
    const body = documentTextSql(hasTable(db, 'history_document_spans'));
    const documentColumns = `d.rowid AS rowid, d.id AS id, d.kind AS kind, d.agent AS agent, d.at AS at, ${body} AS body, d.folded AS folded, d.link AS link, d.message AS message, d.job AS job, d.run AS run, d.session AS session, d.cursor AS cursor`;
    // Documents derived from a record are named durable:<record>:<offset> (legacy ones durable:<record>): a range of the primary key.
    this.documents = db.prepare(`SELECT ${documentColumns} FROM history_documents d WHERE d.id >= ? AND d.id < ? ORDER BY d.id`);
    this.legacyDocument = db.prepare(`SELECT ${documentColumns} FROM history_documents d WHERE d.id = ?`);
    // What a record's documents will weigh in a replica, without reading their text: a stored body's bytes
    // (octet_length reads no text), else the span's raw bytes (an estimate: the derived text drops the JSON
    // around it and its escapes, so it is usually smaller).
    const [weight, from] = hasTable(db, 'history_document_spans')
      ? ['CASE WHEN s.doc IS NULL THEN octet_length(d.body) ELSE s.length END', 'history_documents d LEFT JOIN history_document_spans s ON s.doc = d.rowid']
      : ['octet_length(d.body)', 'history_documents d'];
    this.documentBytes = db.prepare(`SELECT coalesce(sum(${weight}), 0) FROM ${from} WHERE (d.id >= ? AND d.id < ?) OR d.id = ?`).pluck();
    this.ref = hasTable(db, 'history_document_refs')
      ? db.prepare('SELECT r.record, c.id AS conversation, r.line FROM history_document_refs r JOIN conversations c ON c.rowid = r.conversation WHERE r.doc = ?')
      : null;
    this.tags = db.prepare('SELECT type, value FROM history_tags WHERE id = ? ORDER BY type, value');
    this.recordKey = db.prepare('SELECT id, source, generation, offset, length(raw) AS size FROM conversation_records WHERE id = ?');
  }

  /** Changes whenever the writer commits (PRAGMA data_version). */
  dataVersion(): number {
    return this.version.get() as number;
  }

  /** A reindex is rebuilding documents: a record copied now could miss its documents. */
  reindexing(): boolean {
    return reindexProgress(this.db) !== null;
  }

  /** When the last central reindex finished ('' for never): which derivation the documents are. */
  reindexedAt(): string {
    return String(lastReindex(this.db) ?? '');
  }

  projectsAfter(after: string, limit: number): string[] {
    return (this.projects.all({ after, limit }) as string[]).filter((p) => p !== '');
  }

  ownConversations(project: string, afterRowid: number, limit: number): ConversationMeta[] {
    return this.own.all(project, afterRowid, limit) as ConversationMeta[];
  }

  memberConversations(project: string, after: string, limit: number): ConversationMeta[] {
    return (this.members?.all(project, after, limit) ?? []) as ConversationMeta[];
  }

  conversation(id: string): ConversationMeta | undefined {
    return this.byId.get(id) as ConversationMeta | undefined;
  }

  bindingOf(session: string, agent: string): BindingMeta | undefined {
    return this.binding.get(session, agent) as BindingMeta | undefined;
  }

  aliasesOf(session: string): AliasMeta[] {
    return this.aliases.all(session) as AliasMeta[];
  }

  lastRecord(conversation: string): number {
    return (this.last.get(conversation) as number | null) ?? 0;
  }

  recordsAfter(conversation: string, after: number): number {
    return this.countAfter.get(conversation, after) as number;
  }

  /** What copying `record` writes to a replica: its raw bytes, its body and its documents' text (estimated). */
  private weight(record: RecordRow): number {
    const documents = this.documentBytes.get(...recordDocumentRange(record.id), legacyDocumentId(record.id)) as number;
    return record.raw.byteLength + Buffer.byteLength(record.body) + documents;
  }

  /**
   * Up to `limit` records of a conversation after `after`, in id order, as
   * long as their bytes (raw, body and their documents' text) fit in
   * `budget`, with the bytes they came to. With `atLeastOne`, the first
   * record is taken whatever its size (a record larger than a step's budget
   * still gets copied). Rows are stepped one at a time: past the first that
   * does not fit, none is read.
   */
  readRecords(conversation: string, after: number, limit: number, budget: number, atLeastOne: boolean): { records: RecordRow[]; bytes: number; more: boolean } {
    const records: RecordRow[] = [];
    let bytes = 0;
    const rows = this.records.iterate(conversation, after, limit) as IterableIterator<RecordRow>;
    for (const record of rows) {
      const size = this.weight(record);
      if (bytes + size > budget && (records.length > 0 || !atLeastOne)) {
        rows.return?.(); // the statement is reset; the record is read again by the next step
        return { records, bytes, more: true };
      }
      records.push(record);
      bytes += size;
    }
    return { records, bytes, more: records.length === limit };
  }

  documentsOf(record: number): DocumentRow[] {
    const rows = this.documents.all(...recordDocumentRange(record)) as DocumentRow[];
    const legacy = this.legacyDocument.get(legacyDocumentId(record)) as DocumentRow | undefined;
    return legacy === undefined ? rows : [legacy, ...rows];
  }

  refOf(documentRowid: number): DocumentRef | undefined {
    return this.ref?.get(documentRowid) as DocumentRef | undefined;
  }

  /** A record's key and size, without its bytes. */
  recordKeyOf(id: number): { id: number; source: string; generation: number; offset: number; size: number } | undefined {
    return this.recordKey.get(id) as { id: number; source: string; generation: number; offset: number; size: number } | undefined;
  }

  tagsOf(documentId: string): Array<{ type: string; value: string }> {
    return this.tags.all(documentId) as Array<{ type: string; value: string }>;
  }
}
