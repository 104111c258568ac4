// Run-time schema checks: OpenCode versions differ (docs/formats.md §3.2:
// columns were added by later migrations, a development branch even dropped
// session.directory), so columns are looked up with PRAGMA table_info on every
// connection. A missing optional column is tolerated; a missing required
// table or column is reported, naming it.

import type { Db } from './access.ts';

export interface Columns {
  readonly session: ReadonlySet<string>;
  readonly message: ReadonlySet<string>;
  readonly part: ReadonlySet<string>;
  readonly project: ReadonlySet<string>;
}

const REQUIRED: Record<'session' | 'message' | 'part', readonly string[]> = {
  session: ['id', 'time_updated'],
  message: ['id', 'session_id', 'time_updated', 'data'],
  part: ['id', 'session_id', 'time_updated', 'data'],
};

function columnsOf(db: Db, table: string): Set<string> {
  const rows = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
  return new Set(rows.map((r) => r.name));
}

export function readColumns(db: Db): Columns {
  return { session: columnsOf(db, 'session'), message: columnsOf(db, 'message'), part: columnsOf(db, 'part'), project: columnsOf(db, 'project') };
}

/** What capture needs and the database lacks ("table part", "message.data"), empty when nothing. */
export function missingRequired(columns: Columns): string[] {
  const missing: string[] = [];
  for (const [table, needed] of Object.entries(REQUIRED) as Array<[keyof typeof REQUIRED, readonly string[]]>) {
    const have = columns[table];
    if (have.size === 0) {
      missing.push(`table ${table}`);
      continue;
    }
    for (const column of needed) if (!have.has(column)) missing.push(`${table}.${column}`);
  }
  return missing;
}
