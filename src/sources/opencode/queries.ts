// The reads capture makes on an OpenCode database, prepared once per
// connection. Every query is bounded (LIMIT, or a primary-key lookup) and
// ordered by (time_updated, id), the order OpenCode's updates are observed in.

import type Database from 'better-sqlite3';
import type { Db } from './access.ts';
import type { RowTable } from '../../keys/opencode.ts';
import type { Columns } from './schema.ts';

export interface Position {
  readonly at: number;
  readonly id: string;
}

export interface RowHead {
  readonly id: string;
  readonly time_updated: number;
}

export interface RowData {
  readonly time_updated: number;
  readonly data: Buffer | null;
}

type Statement = Database.Statement<unknown[]>;

const AFTER = '(time_updated > ? OR (time_updated = ? AND id > ?))';

export class Queries {
  private readonly sessionsPage: Statement;
  private readonly recent: Statement;
  private readonly one: Statement;
  private readonly parent: Statement | null;
  private readonly worktree: Statement | null;
  private readonly list: Record<RowTable, Statement>;
  private readonly any: Record<RowTable, Statement>;
  private readonly fetch: Record<RowTable, Statement>;

  constructor(db: Db, readonly columns: Columns) {
    this.sessionsPage = db.prepare(`SELECT * FROM session WHERE ${AFTER} ORDER BY time_updated, id LIMIT ?`);
    this.one = db.prepare('SELECT * FROM session WHERE id = ?');
    this.recent = db.prepare('SELECT id FROM session ORDER BY time_updated DESC LIMIT ?').pluck();
    this.parent = columns.session.has('parent_id') ? db.prepare('SELECT parent_id FROM session WHERE id = ?').pluck() : null;
    this.worktree = columns.project.has('worktree') && columns.project.has('id') ? db.prepare('SELECT worktree FROM project WHERE id = ?').pluck() : null;
    const table = (t: RowTable) => ({
      list: db.prepare(`SELECT id, time_updated FROM ${t} WHERE session_id = ? AND ${AFTER} ORDER BY time_updated, id LIMIT ?`),
      any: db.prepare(`SELECT 1 FROM ${t} WHERE session_id = ? AND ${AFTER} LIMIT 1`).pluck(),
      fetch: db.prepare(`SELECT time_updated, CAST(data AS BLOB) AS data FROM ${t} WHERE id = ?`),
    });
    const message = table('message');
    const part = table('part');
    this.list = { message: message.list, part: part.list };
    this.any = { message: message.any, part: part.any };
    this.fetch = { message: message.fetch, part: part.fetch };
  }

  sessionsAfter(from: Position, limit: number): Array<Record<string, unknown>> {
    return this.sessionsPage.all(from.at, from.at, from.id, limit) as Array<Record<string, unknown>>;
  }

  session(id: string): Record<string, unknown> | undefined {
    return this.one.get(id) as Record<string, unknown> | undefined;
  }

  recentSessions(limit: number): string[] {
    return this.recent.all(limit) as string[];
  }

  /** parent_id of a session: undefined when the session is not in this database (or has no such column). */
  parentOf(session: string): string | null | undefined {
    if (this.parent === null) return undefined;
    return this.parent.get(session) as string | null | undefined;
  }

  worktreeOf(project: string): string | null {
    const value = this.worktree?.get(project);
    return typeof value === 'string' ? value : null;
  }

  rowsAfter(table: RowTable, session: string, from: Position, limit: number): RowHead[] {
    return this.list[table].all(session, from.at, from.at, from.id, limit) as RowHead[];
  }

  hasRowsAfter(table: RowTable, session: string, from: Position): boolean {
    return this.any[table].get(session, from.at, from.at, from.id) !== undefined;
  }

  row(table: RowTable, id: string): RowData | undefined {
    return this.fetch[table].get(id) as RowData | undefined;
  }
}
