// Multi-row INSERT statements, prepared once per row count.
//
// Why many rows per statement: FTS5 flushes its pending terms to a new
// segment at every statement savepoint, and an INSERT into a table with a
// trigger runs under one. A document inserted per statement therefore made
// a segment per document (and the merge work to match); a group of documents
// per statement makes one segment per group (src/store/appender.ts,
// src/mirror/replica-writer.ts).

import type { Statement } from 'better-sqlite3';
import type { Db } from '../store/open.ts';

export class MultiRowInsert {
  private readonly statements = new Map<number, Statement>();

  /**
   * `head` is everything before VALUES (`INSERT OR IGNORE INTO t (a, b)`),
   * `row` one row's tuple (`(?, ?, '')`), `tail` what follows the rows
   * (`RETURNING rowid`, or '').
   */
  constructor(
    private readonly db: Db,
    private readonly head: string,
    private readonly row: string,
    private readonly tail = '',
  ) {}

  /** The statement for `rows` rows (its parameters: each row's, in order). */
  statement(rows: number): Statement {
    let statement = this.statements.get(rows);
    if (statement === undefined) {
      statement = this.db.prepare(`${this.head} VALUES ${Array.from({ length: rows }, () => this.row).join(', ')} ${this.tail}`.trimEnd());
      this.statements.set(rows, statement);
    }
    return statement;
  }
}
