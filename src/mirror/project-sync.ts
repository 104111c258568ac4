// Synchronising one project's replica, in bounded units (specification:
// synchronization copies at most eight raw records and checks 32 metadata
// ids per batch; unchanged bodies are not reread; late ownership
// associations are copied on subsequent bounded sweeps):
//
//   check  one slice of a sweep over the project's conversations (its own,
//          then those associated through conversation_memberships), at most
//          `idsPerStep` of them: their metadata rows (conversation, session
//          binding, aliases) are brought up to date in the replica, and a
//          conversation whose newest central record is past the replica's
//          cursor becomes dirty. No raw byte or body is read.
//   copy   up to `recordsPerStep` records of dirty conversations after their
//          cursors, as many as fit in `stepBytes` (a step's first record is
//          taken whatever its size), byte for byte, with the documents
//          derived from them, and the cursors, in one replica transaction;
//          the documents go in last and together: one FTS5 segment per step.
//   merge  after every few copy steps, bounded FTS5 merges of the
//          replica's index (src/store/fts-merge.ts: FTS5 does not merge inside
//          the copy commits), until one finds nothing to merge.
//
// A sweep runs whenever the central store changed since the last one began
// (its data_version), so a late job binding, a project learned later or a
// new alias reaches the replica on a following sweep; records already
// copied are never read again.
//
// After a central reindex (its completion time differs from the one the
// replica's documents reflect, mirror_meta 'documents'), the copy unit first
// walks the replica's records, 8 at a time, and brings their documents up to
// date (documents only: no raw byte is read); a document the reindex no
// longer derives stays (nothing is deleted).

import type { CentralView, ConversationMeta, DocumentRow } from './central.ts';
import { SEGMENTS_PER_MERGE } from '../store/fts-merge.ts';
import type { DocumentCopy, ReplicaWriter } from './replica-writer.ts';

export interface SyncLimits {
  readonly recordsPerStep: number;
  readonly idsPerStep: number;
  /** Bytes (raw, body and documents' text) a copy step's records fit in (its first record excepted). */
  readonly stepBytes: number;
  /** FTS5 pages one merge writes at most (about), and how long a merge step goes on while merges find work. */
  readonly mergePages: number;
  readonly mergeMs: number;
}

interface Sweep {
  /** data_version when the sweep began. */
  readonly version: number;
  phase: 'own' | 'members' | 'done';
  afterRowid: number;
  afterMember: string;
}

export class ProjectSync {
  private sweep: Sweep | null = null;
  /** data_version at the start of the last finished sweep (null: never swept). */
  private sweptVersion: number | null = null;
  /** Dirty conversations → records known to wait, in the order they are copied (a conversation with more goes to the back). */
  private readonly dirty = new Map<string, number>();
  syncedAt: number | null = null;
  conversations = 0;
  records = 0;
  private writer: ReplicaWriter | null = null;
  /** A document refresh in progress: the central reindex it follows, and the last replica record done. */
  private refresh: { readonly target: string; after: number } | null = null;
  /**
   * Copy steps since a merge last found nothing to merge; from
   * SEGMENTS_PER_MERGE on, the replica's index may have segments to merge. A
   * new sync state starts there (its replica may come from an earlier run),
   * and so does a document refresh. Reopening a replica (after the connection
   * was closed to keep few open) changes nothing: the count followed every write.
   */
  private copiesSinceMerge = SEGMENTS_PER_MERGE;

  constructor(
    readonly project: string,
    private readonly central: CentralView,
    private readonly limits: SyncLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Work on `writer`'s replica. `fresh`: it is not the file this state
   * describes (new, rebuilt, replaced): start over with a full sweep.
   * The state survives closing the connection (detach) and reopening it.
   */
  attach(writer: ReplicaWriter, fresh: boolean): void {
    if (fresh) {
      this.copiesSinceMerge = SEGMENTS_PER_MERGE;
      this.sweep = null;
      this.sweptVersion = null;
      this.dirty.clear();
      this.syncedAt = null;
      this.refresh = null;
    }
    this.writer = writer;
    const counts = writer.counts();
    this.conversations = counts.conversations;
    this.records = counts.records;
  }

  detach(): void {
    this.writer = null;
  }

  private get replica(): ReplicaWriter {
    if (this.writer === null) throw new Error(`the replica of ${this.project} is not open`);
    return this.writer;
  }

  needsSweep(version: number): boolean {
    return this.sweep !== null || this.sweptVersion !== version;
  }

  get sweeping(): boolean {
    return this.sweep !== null;
  }

  get swept(): boolean {
    return this.sweptVersion !== null;
  }

  get mergeOwed(): boolean {
    return this.copiesSinceMerge >= SEGMENTS_PER_MERGE;
  }

  get hasDirty(): boolean {
    return this.dirty.size > 0 || this.refresh !== null;
  }

  /**
   * The central store's last finished reindex ('' for none): documents copied
   * from now on are derived by it; a replica whose documents reflect another
   * one refreshes them (a new replica simply records it).
   */
  followReindex(done: string): void {
    const replica = this.replica;
    const current = replica.meta('documents');
    if (current === done) return;
    if (current === undefined && this.records === 0) {
      replica.setMeta('documents', done);
      return;
    }
    if (this.refresh?.target !== done) this.refresh = { target: done, after: 0 };
  }

  /** Records known to wait (null before the first sweep finished). */
  get behind(): number | null {
    if (this.sweptVersion === null) return null;
    let n = 0;
    for (const pending of this.dirty.values()) n += pending;
    return n;
  }

  /** Check the next slice of the sweep (starting one at `version` if none runs). Returns the ids checked. */
  check(version: number): number {
    this.sweep ??= { version, phase: 'own', afterRowid: 0, afterMember: '' };
    const sweep = this.sweep;
    let checked = 0;
    this.replica.db
      .transaction(() => {
        while (checked < this.limits.idsPerStep && sweep.phase !== 'done') {
          const want = this.limits.idsPerStep - checked;
          const rows =
            sweep.phase === 'own'
              ? this.central.ownConversations(this.project, sweep.afterRowid, want)
              : this.central.memberConversations(this.project, sweep.afterMember, want);
          for (const row of rows) this.checkConversation(row, sweep.phase === 'members');
          checked += rows.length;
          const last = rows.at(-1);
          if (last !== undefined) {
            if (sweep.phase === 'own') sweep.afterRowid = last.rowid;
            else sweep.afterMember = last.id;
          }
          if (rows.length < want) sweep.phase = sweep.phase === 'own' ? 'members' : 'done';
        }
      })
      .immediate();
    if (sweep.phase === 'done') {
      this.sweep = null;
      this.sweptVersion = sweep.version;
      if (this.dirty.size === 0) this.syncedAt = this.now();
    }
    return checked;
  }

  private checkConversation(row: ConversationMeta, member: boolean): void {
    if (this.replica.putConversation(row).inserted) this.conversations++;
    if (member) this.replica.putMembership(this.project, row.id);
    if (row.session !== '') {
      const binding = this.central.bindingOf(row.session, row.agent);
      if (binding !== undefined) this.replica.putBinding(binding);
      for (const alias of this.central.aliasesOf(row.session)) this.replica.putAlias(alias);
    }
    if (this.dirty.has(row.id)) return;
    const cursor = this.replica.cursor(row.id);
    if (this.central.lastRecord(row.id) > cursor) this.dirty.set(row.id, this.central.recordsAfter(row.id, cursor));
  }

  /**
   * Copy up to `recordsPerStep` records of dirty conversations (the next one
   * first, then the following ones while the budget lasts), each with its
   * documents and its cursor, in one transaction. Returns how many were copied.
   */
  copy(): number {
    if (this.refresh !== null) return this.refreshDocuments(this.refresh);
    if (this.dirty.size === 0) return 0;
    let copied = 0;
    let read = 0;
    let bytes = 0;
    const done: Array<{ conversation: string; pending: number; count: number; last: number; full: boolean }> = [];
    const documents: DocumentCopy[] = [];
    this.replica.db
      .transaction(() => {
        for (const [conversation, pending] of this.dirty) {
          const want = this.limits.recordsPerStep - read;
          if (want <= 0 || bytes >= this.limits.stepBytes) break;
          const page = this.central.readRecords(conversation, this.replica.cursor(conversation), want, this.limits.stepBytes - bytes, read === 0);
          const { records } = page;
          read += records.length;
          bytes += page.bytes;
          for (const record of records) {
            if (this.replica.putRecord(record)) copied++;
            for (const doc of this.central.documentsOf(record.id)) documents.push(this.documentCopy(doc));
          }
          const last = records.at(-1);
          if (last !== undefined) this.replica.setCursor(conversation, last.id);
          done.push({ conversation, pending, count: records.length, last: last?.id ?? 0, full: page.more });
          if (page.more && records.length < want) break; // the byte budget is spent
        }
        // The step's documents last, together: one FTS5 segment for the step.
        this.replica.putDocuments(documents);
      })
      .immediate();
    // After the commit: the in-memory queue follows what is durable.
    for (const { conversation, pending, count, last, full } of done) {
      this.dirty.delete(conversation);
      // A conversation that filled a budget may have more: to the back of the queue.
      if (full && this.central.lastRecord(conversation) > last) this.dirty.set(conversation, Math.max(1, pending - count));
    }
    this.records += copied;
    if (read > 0) this.copiesSinceMerge++;
    if (this.dirty.size === 0 && this.sweep === null) this.syncedAt = this.now();
    return copied;
  }

  /** Bounded FTS5 merges of the replica's index; once one finds nothing to merge, nothing is owed until more copies. */
  merge(): void {
    if (!this.replica.merger.run(this.limits.mergePages, this.limits.mergeMs)) this.copiesSinceMerge = 0;
  }

  /** One slice of a document refresh (up to recordsPerStep records' documents). Copies no record: returns 0. */
  private refreshDocuments(refresh: { readonly target: string; after: number }): number {
    const ids = this.replica.recordIdsAfter(refresh.after, this.limits.recordsPerStep);
    this.replica.db
      .transaction(() => {
        const missing: DocumentCopy[] = [];
        for (const record of ids) {
          for (const doc of this.central.documentsOf(record)) if (!this.replica.refreshDocument(doc)) missing.push(this.documentCopy(doc));
        }
        this.replica.putDocuments(missing);
        if (ids.length < this.limits.recordsPerStep) this.replica.setMeta('documents', refresh.target);
      })
      .immediate();
    refresh.after = ids.at(-1) ?? refresh.after;
    if (ids.length > 0) this.copiesSinceMerge = SEGMENTS_PER_MERGE;
    if (ids.length < this.limits.recordsPerStep) this.refresh = null;
    return 0;
  }

  /** What the replica needs to copy a central document: its ref points at the replica's conversation row. */
  private documentCopy(doc: DocumentRow): DocumentCopy {
    const ref = this.central.refOf(doc.rowid);
    const conversationRowid = ref === undefined ? null : this.conversationRowid(ref.conversation);
    return { doc, ref: ref === undefined || conversationRowid === null ? null : { record: ref.record, conversation: conversationRowid, line: ref.line }, tags: this.central.tagsOf(doc.id) };
  }

  /** The replica rowid of a conversation a document refers to (its row copied first when it is not there yet). */
  private conversationRowid(id: string): number | null {
    const rowid = this.replica.conversationRowid(id);
    if (rowid !== undefined) return rowid;
    const meta = this.central.conversation(id);
    if (meta === undefined) return null;
    this.conversations++;
    return this.replica.putConversation(meta).rowid;
  }
}
