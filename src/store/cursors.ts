// Reading history_cursors by key prefix: record providers load the cursors
// they committed (one per OpenCode session and table, for example) when they
// start. Read-only; any connection.

import type { Db } from './open.ts';

/** Every (key, value) whose key starts with `prefix`, in key order. */
export function cursorsWithPrefix(db: Db, prefix: string): Array<[string, string]> {
  if (prefix === '') throw new Error('a cursor prefix must not be empty');
  // Keys in [prefix, prefix with its last character incremented) start with prefix (BINARY collation).
  const upper = prefix.slice(0, -1) + String.fromCodePoint((prefix.codePointAt(prefix.length - 1) as number) + 1);
  const rows = db.prepare('SELECT source, cursor FROM history_cursors WHERE source >= ? AND source < ? ORDER BY source').raw().all(prefix, upper) as Array<[string, string]>;
  return rows;
}
