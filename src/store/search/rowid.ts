// FTS5 and JS numbers.

/**
 * A rowid parameter in a constraint on history_fts. better-sqlite3 binds a JS
 * number as REAL, and FTS5 uses a rowid bound only when it is an INTEGER:
 * with a REAL it walks every match (`<=`, BETWEEN: correct, since SQLite
 * checks the bound again, but from the newest match on every time) or, for
 * `=`, returns every match (SQLite 3.53).
 */
export const ROWID = 'CAST(? AS INTEGER)';
