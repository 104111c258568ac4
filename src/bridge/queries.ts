// The statements capture runs on the broker's databases, prepared once per
// connection. All are reads of a bounded number of rows, each its own short
// read transaction. `rowid AS __rowid` is removed from message rows before
// they are retained, so a retained envelope is exactly the row's columns.

import type { Statement } from 'better-sqlite3';
import type { BrokerDb } from './broker-db.ts';
import { bridgeTables, tableNames, type BridgeTables } from './broker-db.ts';
import type { DecisionRow } from './decisions.ts';
import type { MessageRow } from './messages.ts';
import type { PeerNameRow, SessionBindingRow } from './peers.ts';

export interface Envelope {
  readonly id: number;
  readonly message: string;
  readonly recipient: string;
}

/** A position in a table read in (learned_at, rowid) order. */
export interface LearnedCursor {
  readonly at: number;
  readonly rowid: number;
}

type Row<T> = T & { readonly __rowid: number };

function stripRowid<T>(row: Row<T>): { row: T; rowid: number } {
  const { __rowid, ...rest } = row as Row<T> & Record<string, unknown>;
  return { row: rest as unknown as T, rowid: __rowid };
}

/** Statements prepared once per connection. */
class Prepared {
  private readonly cache = new Map<string, Statement<unknown[]>>();
  constructor(protected readonly db: BrokerDb) {}

  protected stmt(sql: string): Statement<unknown[]> {
    let statement = this.cache.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }
}

export class BridgeQueries extends Prepared {
  readonly tables: BridgeTables;

  constructor(db: BrokerDb) {
    super(db);
    this.tables = bridgeTables(db);
  }

  envelopesAfter(after: number, limit: number): Envelope[] {
    return this.stmt('SELECT id, message, recipient FROM conversation_envelopes WHERE id > ? ORDER BY id LIMIT ?').all(after, limit) as Envelope[];
  }

  /** The message row of (id, recipient); failing that, another row of the id (a claimed queue key: the 0.29.17 lookup). */
  message(id: string, recipient: string, exact: boolean): MessageRow | undefined {
    const sql = exact
      ? 'SELECT * FROM messages WHERE id = ? AND recipient = ?'
      : 'SELECT * FROM messages WHERE id = ? ORDER BY recipient = ? DESC, rowid LIMIT 1';
    return this.stmt(sql).get(id, recipient) as MessageRow | undefined;
  }

  /** Live rows by rowid (a sweep, or capture of a bridge.db without envelope keys). */
  messagesAfter(rowid: number, limit: number): Array<{ row: MessageRow; rowid: number }> {
    const rows = this.stmt('SELECT rowid AS __rowid, * FROM messages WHERE rowid > ? ORDER BY rowid LIMIT ?').all(rowid, limit) as Array<Row<MessageRow>>;
    return rows.map(stripRowid);
  }

  /** Rows as the 0.29.17 ingestor retained them: `SELECT rowid n, *` (decisions, archive.db messages). */
  numberedAfter<T>(table: 'decisions' | 'messages', after: number, limit: number): T[] {
    return this.stmt(`SELECT rowid AS n, * FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ?`).all(after, limit) as T[];
  }

  decisionsAfter(after: number, limit: number): DecisionRow[] {
    return this.numberedAfter<DecisionRow>('decisions', after, limit);
  }

  sessionBindingsAfter(cursor: LearnedCursor, limit: number): Array<{ row: SessionBindingRow; rowid: number }> {
    const rows = this
      .stmt('SELECT rowid AS __rowid, identity, session_id, learned_at FROM session_bindings WHERE learned_at > ? OR (learned_at = ? AND rowid > ?) ORDER BY learned_at, rowid LIMIT ?')
      .all(cursor.at, cursor.at, cursor.rowid, limit) as Array<Row<SessionBindingRow>>;
    return rows.map(stripRowid);
  }

  peerNamesAfter(cursor: LearnedCursor, limit: number): Array<{ row: PeerNameRow; rowid: number }> {
    const rows = this
      .stmt('SELECT rowid AS __rowid, identity, name, session_id, agent, learned_at FROM peer_names WHERE learned_at > ? OR (learned_at = ? AND rowid > ?) ORDER BY learned_at, rowid LIMIT ?')
      .all(cursor.at, cursor.at, cursor.rowid, limit) as Array<Row<PeerNameRow>>;
    return rows.map(stripRowid);
  }
}

/** archive.db: the same messages columns plus archive_reason and archived_at. */
export class ArchiveQueries extends Prepared {
  /** archive.db exists but has no messages table yet (the broker creates it on first archival). */
  readonly empty: boolean;

  constructor(db: BrokerDb) {
    super(db);
    this.empty = !tableNames(db).has('messages');
  }

  message(id: string, recipient: string, exact: boolean): MessageRow | undefined {
    if (this.empty) return undefined;
    const sql = exact
      ? 'SELECT * FROM messages WHERE id = ? AND recipient = ?'
      : 'SELECT * FROM messages WHERE id = ? ORDER BY recipient = ? DESC, rowid LIMIT 1';
    return this.stmt(sql).get(id, recipient) as MessageRow | undefined;
  }

  rowsAfter(after: number, limit: number): Array<MessageRow & { readonly n: number }> {
    if (this.empty) return [];
    return this.stmt('SELECT rowid AS n, * FROM messages WHERE rowid > ? ORDER BY rowid LIMIT ?').all(after, limit) as Array<MessageRow & { n: number }>;
  }
}
