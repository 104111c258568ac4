// Writes into one replica (the mirror actor's connection to it). Rows keep
// their central values: record ids, sources, raw bytes and bodies exactly;
// documents by id (their rowids, and the conversation rowids refs point at,
// are the replica's own). Every write is idempotent, so a step that is
// repeated after a crash adds nothing twice; the caller runs each step in
// one transaction with the cursor it moves.

import { HistoryError } from '../../protocols/errors.ts';
import { MultiRowInsert } from '../sqlite/multi-row.ts';
import { FtsMerger } from '../store/fts-merge.ts';
import type { Db } from '../store/open.ts';
import type { AliasMeta, BindingMeta, ConversationMeta, DocumentRow, RecordRow } from './central.ts';

/** The replica holds something else where the central store has a record: it belongs to another central history. */
export class ReplicaMismatch extends HistoryError {
  constructor(message: string) {
    super('VERIFY_FAILED', message, { step: 'mirror records' });
  }
}

/** A document to copy: its central row, its ref with the replica's conversation rowid (null: none), its tags. */
export interface DocumentCopy {
  readonly doc: DocumentRow;
  readonly ref: { readonly record: number; readonly conversation: number; readonly line: number } | null;
  readonly tags: ReadonlyArray<{ readonly type: string; readonly value: string }>;
}

/** Documents per multi-row insert (12 parameters each, far below SQLite's limit). */
const DOCUMENT_GROUP = 128;

export class ReplicaWriter {
  /** Bounded merges of the replica's FTS5 index (automerge is off in replicas). */
  readonly merger: FtsMerger;
  private readonly getCursor;
  private readonly upsertCursor;
  private readonly rowidOf;
  private readonly upsertConversation;
  private readonly upsertBinding;
  private readonly upsertAlias;
  private readonly insertMembership;
  private readonly insertProject;
  private readonly insertRecord;
  private readonly recordById;
  private readonly recordByKey;
  private readonly insertDocuments;
  private readonly insertRef;
  private readonly insertTag;
  private readonly lastRecord;
  private readonly updateDocument;
  private readonly recordsAfter;
  private readonly getMeta;
  private readonly putMeta;

  constructor(readonly db: Db) {
    this.getCursor = db.prepare('SELECT record FROM mirror_cursors WHERE conversation = ?').pluck();
    this.upsertCursor = db.prepare('INSERT INTO mirror_cursors (conversation, record) VALUES (?, ?) ON CONFLICT(conversation) DO UPDATE SET record = excluded.record');
    this.rowidOf = db.prepare('SELECT rowid FROM conversations WHERE id = ?').pluck();
    this.upsertConversation = db.prepare(
      `INSERT INTO conversations (id, agent, session, parent, project, job, kind) VALUES (@id, @agent, @session, @parent, @project, @job, @kind)
       ON CONFLICT(id) DO UPDATE SET agent = excluded.agent, session = excluded.session, parent = excluded.parent,
         project = excluded.project, job = excluded.job, kind = excluded.kind
       WHERE conversations.agent IS NOT excluded.agent OR conversations.session IS NOT excluded.session
          OR conversations.parent IS NOT excluded.parent OR conversations.project IS NOT excluded.project
          OR conversations.job IS NOT excluded.job OR conversations.kind IS NOT excluded.kind`,
    );
    this.upsertBinding = db.prepare(
      `INSERT INTO conversation_bindings (session, agent, cwd, job, pending) VALUES (@session, @agent, @cwd, @job, @pending)
       ON CONFLICT(session, agent) DO UPDATE SET cwd = excluded.cwd, job = excluded.job, pending = excluded.pending
       WHERE conversation_bindings.cwd IS NOT excluded.cwd OR conversation_bindings.job IS NOT excluded.job
          OR conversation_bindings.pending IS NOT excluded.pending`,
    );
    this.upsertAlias = db.prepare(
      `INSERT INTO history_sessions (alias, session, job) VALUES (@alias, @session, @job)
       ON CONFLICT(alias) DO UPDATE SET session = excluded.session, job = excluded.job
       WHERE history_sessions.session IS NOT excluded.session OR history_sessions.job IS NOT excluded.job`,
    );
    this.insertMembership = db.prepare('INSERT OR IGNORE INTO conversation_memberships (project, conversation) VALUES (?, ?)');
    this.insertProject = db.prepare('INSERT OR IGNORE INTO conversation_projects (project) VALUES (?)');
    this.insertRecord = db.prepare(
      'INSERT OR IGNORE INTO conversation_records (id, source, generation, offset, conversation, at, raw, body, part) VALUES (@id, @source, @generation, @offset, @conversation, @at, @raw, @body, @part)',
    );
    this.recordById = db.prepare('SELECT source, generation, offset, conversation, raw, body FROM conversation_records WHERE id = ?');
    this.recordByKey = db.prepare('SELECT id FROM conversation_records WHERE source = ? AND generation = ? AND offset = ?').pluck();
    this.merger = new FtsMerger(db);
    this.insertDocuments = new MultiRowInsert(
      db,
      'INSERT INTO history_documents (id, kind, agent, at, body, folded, link, message, job, run, session, cursor)',
      '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      'ON CONFLICT(id) DO NOTHING RETURNING rowid, id',
    );
    this.insertRef = db.prepare('INSERT OR IGNORE INTO history_document_refs (doc, record, conversation, line) VALUES (?, ?, ?, ?)');
    this.insertTag = db.prepare('INSERT OR IGNORE INTO history_tags (id, type, value) VALUES (?, ?, ?)');
    this.lastRecord = db.prepare('SELECT id, source, generation, offset, length(raw) AS size FROM conversation_records ORDER BY id DESC LIMIT 1');
    // A document derived again by a central reindex: its columns follow (the update trigger keeps FTS and facets).
    this.updateDocument = db.prepare(
      `UPDATE history_documents SET kind = @kind, agent = @agent, at = @at, body = @body, folded = @folded, link = @link, message = @message,
         job = @job, run = @run, session = @session, cursor = @cursor
       WHERE id = @id AND (kind IS NOT @kind OR agent IS NOT @agent OR at IS NOT @at OR body IS NOT @body OR folded IS NOT @folded OR link IS NOT @link
         OR message IS NOT @message OR job IS NOT @job OR run IS NOT @run OR session IS NOT @session OR cursor IS NOT @cursor)`,
    );
    this.recordsAfter = db.prepare('SELECT id FROM conversation_records WHERE id > ? ORDER BY id LIMIT ?').pluck();
    this.getMeta = db.prepare('SELECT value FROM mirror_meta WHERE key = ?').pluck();
    this.putMeta = db.prepare('INSERT INTO mirror_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  }

  meta(key: string): string | undefined {
    return this.getMeta.get(key) as string | undefined;
  }

  setMeta(key: string, value: string): void {
    this.putMeta.run(key, value);
  }

  /** Ids of the replica's records after `after` (a document refresh walks them). */
  recordIdsAfter(after: number, limit: number): number[] {
    return this.recordsAfter.all(after, limit) as number[];
  }

  /** Bring a document that exists already up to date; returns whether it changed. */
  refreshDocument(doc: DocumentRow): boolean {
    const { rowid: _central, ...columns } = doc;
    return this.updateDocument.run(columns).changes > 0;
  }

  /** The last central record id copied for `conversation` (0: none). */
  cursor(conversation: string): number {
    return (this.getCursor.get(conversation) as number | undefined) ?? 0;
  }

  setCursor(conversation: string, record: number): void {
    this.upsertCursor.run(conversation, record);
  }

  /** Insert or correct a conversation row; returns its replica rowid, whether it is new, whether anything changed. */
  putConversation(meta: ConversationMeta): { rowid: number; inserted: boolean; changed: boolean } {
    const before = this.rowidOf.get(meta.id) as number | undefined;
    const changed = this.upsertConversation.run({ id: meta.id, agent: meta.agent, session: meta.session, parent: meta.parent, project: meta.project, job: meta.job, kind: meta.kind }).changes > 0;
    if (changed && meta.project !== '') this.insertProject.run(meta.project);
    return { rowid: before ?? (this.rowidOf.get(meta.id) as number), inserted: before === undefined, changed };
  }

  conversationRowid(id: string): number | undefined {
    return this.rowidOf.get(id) as number | undefined;
  }

  putBinding(binding: BindingMeta): boolean {
    return this.upsertBinding.run(binding).changes > 0;
  }

  putAlias(alias: AliasMeta): boolean {
    return this.upsertAlias.run(alias).changes > 0;
  }

  putMembership(project: string, conversation: string): boolean {
    this.insertProject.run(project);
    return this.insertMembership.run(project, conversation).changes > 0;
  }

  /** Copy a record byte for byte; an identical one already there is kept. Returns whether it was new. */
  putRecord(record: RecordRow): boolean {
    if (this.insertRecord.run(record).changes > 0) return true;
    const existing = this.recordById.get(record.id) as { source: string; generation: number; offset: number; conversation: string; raw: Uint8Array; body: string } | undefined;
    const same =
      existing !== undefined &&
      existing.source === record.source &&
      existing.generation === record.generation &&
      existing.offset === record.offset &&
      existing.conversation === record.conversation &&
      existing.body === record.body &&
      Buffer.compare(Buffer.from(existing.raw), Buffer.from(record.raw)) === 0;
    if (same) return false;
    const other = existing === undefined ? (this.recordByKey.get(record.source, record.generation, record.offset) as number | undefined) : record.id;
    throw new ReplicaMismatch(`the replica holds another record ${other ?? '?'} where the central store has record ${record.id} (${record.source} generation ${record.generation} offset ${record.offset})`);
  }

  /**
   * Copy documents with their refs (conversation: the replica rowid) and
   * tags, those already there excepted, DOCUMENT_GROUP rows per statement
   * (one FTS5 segment per group, not per document: src/sqlite/multi-row.ts).
   */
  putDocuments(copies: readonly DocumentCopy[]): void {
    for (let at = 0; at < copies.length; at += DOCUMENT_GROUP) {
      const group = copies.slice(at, at + DOCUMENT_GROUP);
      const byId = new Map(group.map((copy) => [copy.doc.id, copy]));
      const params: unknown[] = [];
      for (const { doc } of byId.values()) params.push(doc.id, doc.kind, doc.agent, doc.at, doc.body, doc.folded, doc.link, doc.message, doc.job, doc.run, doc.session, doc.cursor);
      const rows = this.insertDocuments.statement(byId.size).all(...params) as Array<{ rowid: number; id: string }>;
      for (const { rowid, id } of rows) {
        const { doc, ref, tags } = byId.get(id) as DocumentCopy;
        if (ref !== null) this.insertRef.run(rowid, ref.record, ref.conversation, ref.line);
        for (const tag of tags) this.insertTag.run(doc.id, tag.type, tag.value);
      }
    }
  }

  /** The newest record the replica holds (to check it still matches the central store). */
  newestRecord(): { id: number; source: string; generation: number; offset: number; size: number } | undefined {
    return this.lastRecord.get() as { id: number; source: string; generation: number; offset: number; size: number } | undefined;
  }

  counts(): { conversations: number; records: number } {
    return {
      conversations: this.db.prepare('SELECT count(*) FROM conversations').pluck().get() as number,
      records: this.db.prepare('SELECT count(*) FROM conversation_records').pluck().get() as number,
    };
  }
}
