// The companion `<snapshot>.progress.db` (version 1): phase, per-table pass
// cursors and the digest of every chunk. It is written on its own connection
// (WAL, synchronous=NORMAL), in the same unit as the data it checkpoints and
// right after that data commits: during the snapshot pass after the snapshot
// file's commit (SnapshotWriter.unit; what a crash in between leaves is
// settled by revalidate.ts), in the copy pass after history.db's. The later
// passes are idempotent, so a checkpoint that lags its unit by one crash
// only repeats that unit.
//
// A chunk is a rowid range (after, end]; the chunks of one table generation
// are contiguous from the first row, so together they cover the table up to
// the snapshot cursor and any row added, removed or changed inside that range
// changes some chunk's digest.

import Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { HistoryError } from '../../protocols/errors.ts';
import type { MigrationPass } from '../../protocols/migration.ts';
import { MIGRATION_PASSES } from '../../protocols/migration.ts';
import type { Db } from '../store/open.ts';
import type { LegacyTable } from '../store/schema.ts';
import type { ColumnShape } from './legacy-tables.ts';
import { quoteIdent } from './rows.ts';

export const PROGRESS_VERSION = 1;

export type ProgressPhase = MigrationPass | 'verified';

export interface PassState {
  /** End rowid of the last chunk this pass finished; null before the first. */
  readonly end: bigint | null;
  readonly done: boolean;
  readonly rows: number;
  /** Saved table-wide bh-row-v1 stream state (snapshot-verify and verify). */
  readonly hash: Buffer | null;
}

export interface TableState {
  readonly name: LegacyTable;
  readonly position: number;
  readonly generation: number;
  readonly sql: string;
  readonly columns: readonly ColumnShape[];
  readonly appendOnly: boolean;
  /** Highest rowid the snapshot covers (null: the table was empty). */
  readonly upper: bigint | null;
  /** Rows expected (exact once the snapshot of this generation is done). */
  readonly estimate: number;
  readonly passes: Readonly<Record<MigrationPass, PassState>>;
}

export interface ChunkRecord {
  readonly name: LegacyTable;
  readonly generation: number;
  readonly after: bigint | null;
  readonly end: bigint;
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
}

const PREFIX: Record<MigrationPass, string> = { snapshot: 'snapshot', 'snapshot-verify': 'sverify', copy: 'copy', verify: 'verify' };

function ddl(schema: string): string {
  const s = quoteIdent(schema);
  const passColumns = MIGRATION_PASSES.map((p) => {
    const x = PREFIX[p];
    return `${x}_end INTEGER, ${x}_done INTEGER NOT NULL DEFAULT 0, ${x}_rows INTEGER NOT NULL DEFAULT 0, ${x}_hash BLOB`;
  }).join(',\n  ');
  return `
CREATE TABLE IF NOT EXISTS ${s}.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ${s}.tables (
  name TEXT PRIMARY KEY,
  position INTEGER NOT NULL,
  generation INTEGER NOT NULL,
  sql TEXT NOT NULL,
  columns TEXT NOT NULL,
  append_only INTEGER NOT NULL,
  upper INTEGER,
  estimate INTEGER NOT NULL,
  ${passColumns}
);
CREATE TABLE IF NOT EXISTS ${s}.chunks (
  name TEXT NOT NULL,
  generation INTEGER NOT NULL,
  end_rowid INTEGER NOT NULL,
  after_rowid INTEGER,
  rows INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  PRIMARY KEY (name, generation, end_rowid)
);
CREATE TABLE IF NOT EXISTS ${s}.retained (
  name TEXT NOT NULL,
  generation INTEGER NOT NULL,
  retained_as TEXT NOT NULL,
  rows INTEGER NOT NULL,
  reason TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (name, generation)
);`;
}

/** Create the schema (in `schema` of `db`) or check that an existing one is ours and not newer. */
export function ensureProgressSchema(db: Db, schema: string): void {
  const version = db.pragma(`${quoteIdent(schema)}.user_version`, { simple: true }) as number;
  if (version > PROGRESS_VERSION) {
    throw new HistoryError('SCHEMA_TOO_NEW', `migration progress database version ${version} is newer than this build understands (${PROGRESS_VERSION}); it is left untouched`);
  }
  if (version === PROGRESS_VERSION) return;
  db.transaction(() => {
    db.exec(ddl(schema));
    db.pragma(`${quoteIdent(schema)}.user_version = ${PROGRESS_VERSION}`);
  }).immediate();
}

/**
 * Set a journal mode and check that SQLite switched (it cannot while another
 * connection has the file open; that is transient and retried).
 */
export function setJournalMode(db: Db, schema: string, mode: 'delete' | 'wal'): void {
  const now = String(db.pragma(`${quoteIdent(schema)}.journal_mode = ${mode}`, { simple: true })).toLowerCase();
  if (now !== mode) throw new HistoryError('STORE_BUSY', `could not switch the migration progress database to ${mode} journaling (it is ${now}); retrying later`);
}

/**
 * Open the progress database on its own connection (writable, created when
 * missing). After the snapshot pass nothing needs a two-file commit any more,
 * so the later passes switch it to WAL with synchronous=NORMAL: a checkpoint
 * per chunk without an fsync, still crash-safe (a lost checkpoint only
 * repeats an idempotent chunk). `journal` omitted: leave the mode as it is.
 */
export function openProgressFile(path: string, options: { readonly journal?: 'wal' } = {}): Db {
  const db = new Database(path);
  try {
    db.pragma('busy_timeout = 3000');
    if (options.journal === 'wal') {
      setJournalMode(db, 'main', 'wal');
      db.pragma('synchronous = NORMAL');
    } else {
      db.pragma('synchronous = FULL');
    }
    ensureProgressSchema(db, 'main');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

interface TableRow {
  [key: string]: unknown;
}

function toState(row: TableRow): TableState {
  const pass = (p: MigrationPass): PassState => {
    const x = PREFIX[p];
    return { end: row[`${x}_end`] as bigint | null, done: row[`${x}_done`] === 1n, rows: Number(row[`${x}_rows`]), hash: (row[`${x}_hash`] as Buffer | null) ?? null };
  };
  return {
    name: row.name as LegacyTable,
    position: Number(row.position),
    generation: Number(row.generation),
    sql: row.sql as string,
    columns: JSON.parse(row.columns as string) as ColumnShape[],
    appendOnly: row.append_only === 1n,
    upper: row.upper as bigint | null,
    estimate: Number(row.estimate),
    passes: { snapshot: pass('snapshot'), 'snapshot-verify': pass('snapshot-verify'), copy: pass('copy'), verify: pass('verify') },
  };
}

function emptyPass(): PassState {
  return { end: null, done: false, rows: 0, hash: null };
}

export function freshPasses(): Record<MigrationPass, PassState> {
  return { snapshot: emptyPass(), 'snapshot-verify': emptyPass(), copy: emptyPass(), verify: emptyPass() };
}

/** Typed access to the progress tables; the caller owns transactions. */
export class ProgressStore {
  private readonly statements = new Map<string, Statement>();
  private readonly s: string;

  constructor(
    readonly db: Db,
    schema = 'main',
  ) {
    this.s = quoteIdent(schema);
  }

  private st(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql.replaceAll('$.', `${this.s}.`)).safeIntegers(true);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  meta(key: string): string | null {
    return (this.st('SELECT value FROM $.meta WHERE key = ?').pluck().get(key) as string | undefined) ?? null;
  }

  setMeta(key: string, value: string): void {
    this.st('INSERT INTO $.meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  phase(): ProgressPhase {
    return (this.meta('phase') as ProgressPhase | null) ?? 'snapshot';
  }

  setPhase(phase: ProgressPhase): void {
    this.setMeta('phase', phase);
  }

  tables(): TableState[] {
    return (this.st('SELECT * FROM $.tables ORDER BY position').all() as TableRow[]).map(toState);
  }

  /** Insert or replace a table's whole state. */
  saveTable(t: TableState): void {
    const values: unknown[] = [t.name, t.position, t.generation, t.sql, JSON.stringify(t.columns), t.appendOnly ? 1 : 0, t.upper, t.estimate];
    for (const p of MIGRATION_PASSES) {
      const pass = t.passes[p];
      values.push(pass.end, pass.done ? 1 : 0, pass.rows, pass.hash);
    }
    const marks = values.map(() => '?').join(', ');
    this.st(`INSERT OR REPLACE INTO $.tables VALUES (${marks})`).run(values);
  }

  savePass(name: LegacyTable, pass: MigrationPass, state: PassState): void {
    const x = PREFIX[pass];
    this.st(`UPDATE $.tables SET ${x}_end = ?, ${x}_done = ?, ${x}_rows = ?, ${x}_hash = ? WHERE name = ?`).run(state.end, state.done ? 1 : 0, state.rows, state.hash, name);
  }

  addChunk(c: ChunkRecord): void {
    this.st('INSERT INTO $.chunks (name, generation, end_rowid, after_rowid, rows, bytes, sha256) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      c.name,
      c.generation,
      c.end,
      c.after,
      c.rows,
      c.bytes,
      c.sha256,
    );
  }

  /** The first chunk of a generation after `end` (null: the first chunk). */
  nextChunk(name: LegacyTable, generation: number, end: bigint | null): ChunkRecord | undefined {
    const row = (
      end === null
        ? this.st('SELECT * FROM $.chunks WHERE name = ? AND generation = ? ORDER BY end_rowid LIMIT 1').get(name, generation)
        : this.st('SELECT * FROM $.chunks WHERE name = ? AND generation = ? AND end_rowid > ? ORDER BY end_rowid LIMIT 1').get(name, generation, end)
    ) as TableRow | undefined;
    if (row === undefined) return undefined;
    return {
      name: row.name as LegacyTable,
      generation: Number(row.generation),
      after: row.after_rowid as bigint | null,
      end: row.end_rowid as bigint,
      rows: Number(row.rows),
      bytes: Number(row.bytes),
      sha256: row.sha256 as string,
    };
  }

  chunkCount(name: LegacyTable, generation: number): number {
    return Number(this.st('SELECT count(*) FROM $.chunks WHERE name = ? AND generation = ?').pluck().get(name, generation));
  }

  addRetained(entry: { name: LegacyTable; generation: number; retainedAs: string; rows: number; reason: string; at: number }): void {
    this.st('INSERT INTO $.retained (name, generation, retained_as, rows, reason, at) VALUES (?, ?, ?, ?, ?, ?)').run(
      entry.name,
      entry.generation,
      entry.retainedAs,
      entry.rows,
      entry.reason,
      entry.at,
    );
  }

  retained(): Array<{ name: string; generation: number; retainedAs: string; rows: number; reason: string }> {
    return (this.st('SELECT * FROM $.retained ORDER BY at, name').all() as TableRow[]).map((r) => ({
      name: r.name as string,
      generation: Number(r.generation),
      retainedAs: r.retained_as as string,
      rows: Number(r.rows),
      reason: r.reason as string,
    }));
  }
}
