// The soak's view of the legacy migration: its status in history.db, and
// whether every legacy record and document of bridge.db is in history.db
// under the same rowid with the same values (records are append-only and
// documents are never rewritten by capture, so this holds after capture
// has run too).

import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';

export function migrationStatus(historyDb: string): string | null {
  if (!existsSync(historyDb)) return null;
  const db = new Database(historyDb, { readonly: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'history_migration'").get();
    if (table === undefined) return null;
    return (db.prepare('SELECT status FROM history_migration WHERE version = 1').pluck().get() as string | undefined) ?? null;
  } finally {
    db.close();
  }
}

const TABLES = ['conversation_records', 'history_documents'] as const;

export function legacyRowsKept(bridgeDb: string, historyDb: string): string[] {
  const failures: string[] = [];
  const legacy = new Database(bridgeDb, { readonly: true });
  const history = new Database(historyDb, { readonly: true });
  try {
    for (const table of TABLES) {
      const find = history.prepare(`SELECT * FROM ${table} WHERE rowid = ?`);
      let rows = 0;
      let missing = 0;
      for (const row of legacy.prepare(`SELECT rowid AS _rowid, * FROM ${table}`).iterate() as Iterable<Record<string, unknown>>) {
        rows++;
        const { _rowid, ...values } = row;
        const copy = find.get(_rowid) as Record<string, unknown> | undefined;
        if (copy === undefined || !sameRow(values, copy)) missing++;
      }
      if (missing > 0) failures.push(`${missing} of ${rows} legacy ${table} rows are missing or differ in history.db`);
    }
  } finally {
    legacy.close();
    history.close();
  }
  return failures;
}

function sameRow(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  for (const [k, v] of Object.entries(a)) {
    const w = b[k];
    if (Buffer.isBuffer(v) && Buffer.isBuffer(w) ? !v.equals(w) : v !== w) return false;
  }
  return true;
}
