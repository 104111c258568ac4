// Salvage: copy every readable row of a damaged history.db into a new store,
// page by page (btree.ts), rowids kept. Derived search data (documents
// derived from records, their refs, tags and facets, the FTS index) is not
// copied: a reindex rebuilds it from the records. Records found on pages no
// intact b-tree reaches any more (below a damaged interior page, or of a table
// whose root is lost) are taken too, when their shape is a record's; the
// store's own unique index over records then says which records are lost.
//
// Rows are written in transactions of bounded size, so memory does not grow
// with the size of the store.

import type { Db } from '../store/open.ts';
import { REINDEX_DONE_KEY, REINDEX_KEY } from '../store/reindex-store.ts';
import { BtreeReader, type TableRow, type Value } from './btree.ts';
import type { SqliteFile } from './sqlite-file.ts';

/** Tables copied, in this order: sources before records (the generations trigger looks them up). */
const COPIED = [
  'conversations',
  'conversation_sources',
  'conversation_projects',
  'conversation_memberships',
  'conversation_bindings',
  'conversation_envelopes',
  'conversation_parts',
  'history_files',
  'history_sessions',
  'history_pending',
  'history_migration',
  'history_legacy_tail',
  'history_cursors',
  'history_documents',
  'history_tags',
  'conversation_records',
] as const;

type Copied = (typeof COPIED)[number];

const RECORDS_INDEX = 'sqlite_autoindex_conversation_records_1';
const ROWS_PER_TRANSACTION = 1000;
const BYTES_PER_TRANSACTION = 16 * 1024 * 1024;

const isText = (v: Value): v is string => typeof v === 'string';
const isInt = (v: Value): boolean => typeof v === 'number' || typeof v === 'bigint';
const isTextOrNull = (v: Value): boolean => v === null || typeof v === 'string';

/** The shapes a cell must have to be a row of these tables (checked on every row, and how orphans are told apart). */
const SHAPES: Partial<Record<Copied, (v: Value[]) => boolean>> = {
  conversation_records: (v) =>
    v.length === 9 && v[0] === null && isText(v[1] as Value) && isInt(v[2] as Value) && isInt(v[3] as Value) && isText(v[4] as Value) && typeof v[5] !== 'string' && v[5] !== null && Buffer.isBuffer(v[6]) && isText(v[7] as Value) && isTextOrNull(v[8] as Value),
  conversations: (v) =>
    v.length === 7 && isText(v[0] as Value) && isText(v[1] as Value) && isText(v[2] as Value) && isTextOrNull(v[3] as Value) && isText(v[4] as Value) && isTextOrNull(v[5] as Value) && isText(v[6] as Value) && (v[0] as string).includes(':'),
  conversation_sources: (v) =>
    v.length === 9 && isText(v[0] as Value) && isText(v[1] as Value) && isText(v[2] as Value) && isText(v[3] as Value) && isInt(v[4] as Value) && isInt(v[5] as Value) && isText(v[6] as Value) && isText(v[7] as Value) && isInt(v[8] as Value),
  conversation_projects: (v) => typed(v, 'ti'),
  conversation_memberships: (v) => typed(v, 'tt') && (v[1] as string).includes(':'),
  conversation_bindings: (v) => typed(v, 'tttni'),
  conversation_envelopes: (v) => typed(v, '0tt'),
  conversation_parts: (v) => typed(v, 'ttti'),
  history_files: (v) => typed(v, 'tttntni'),
  history_sessions: (v) => typed(v, 'ttn'),
  history_pending: (v) => typed(v, 'ttttttti'),
  history_migration: (v) => typed(v, '0ntn'),
  history_legacy_tail: (v) => typed(v, '0i'),
  history_cursors: (v) => typed(v, 'tt'),
  history_tags: (v) => typed(v, 'ttt'),
  history_documents: (v) => typed(v, 'tttitttnnnnn'),
};

const CHECKED = new Set<Copied>(['conversation_records', 'conversations', 'conversation_sources']);

/** Values typed as `pattern` says, one letter each: t text, n text or null, i integer, 0 null (an INTEGER PRIMARY KEY). */
function typed(v: readonly Value[], pattern: string): boolean {
  if (v.length !== pattern.length) return false;
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as Value;
    const want = pattern[i];
    if (want === 't' ? !isText(x) : want === 'n' ? !isTextOrNull(x) : want === 'i' ? !isInt(x) : x !== null) return false;
  }
  return true;
}

/** Rows of derived data that are not copied (rebuilt instead), and bookkeeping a new store starts without. */
function skipped(table: Copied, values: Value[]): boolean {
  const first = values[0];
  if (table === 'history_documents' || table === 'history_tags') return typeof first === 'string' && first.startsWith('durable:');
  if (table === 'history_cursors') return first === REINDEX_KEY || first === REINDEX_DONE_KEY;
  return false;
}

export interface LostRecord {
  readonly id: number;
  readonly source: string;
  readonly generation: number;
  readonly offset: number;
}

export interface SalvageResult {
  records: number;
  rawBytes: number;
  fromOrphanPages: number;
  conversations: number;
  sources: number;
  otherRows: number;
  damagedRows: number;
  unreadablePages: number;
  /** Records the unique index names that no page holds; null when the index was unreadable. */
  lostRecords: LostRecord[] | null;
  /** Tables whose root page is unknown or unreadable. */
  readonly missingTables: string[];
  /** Capture times kept by history_generations, by `source\0generation`. */
  readonly captureTimes: Map<string, readonly [number | null, number | null]>;
}

/** Writes rows of one table into the new store, keeping their rowids. */
class TableWriter {
  private readonly insert;
  private readonly columns: number;
  private readonly ipk: number;

  constructor(db: Db, table: string) {
    const info = db.pragma(`table_info(${table})`) as Array<{ name: string; type: string; pk: number }>;
    const keys = info.filter((c) => c.pk > 0);
    this.ipk = keys.length === 1 && keys[0]?.type.toUpperCase() === 'INTEGER' ? info.indexOf(keys[0]) : -1;
    this.columns = info.length;
    const names = info.map((c) => `"${c.name}"`);
    const marks = info.map(() => '?');
    this.insert =
      this.ipk === -1
        ? db.prepare(`INSERT OR IGNORE INTO ${table} (rowid, ${names.join(', ')}) VALUES (?, ${marks.join(', ')})`)
        : db.prepare(`INSERT OR IGNORE INTO ${table} (${names.join(', ')}) VALUES (${marks.join(', ')})`);
  }

  /** Returns whether a row was inserted; throws on a row that cannot be (wrong types, constraints). */
  write(row: TableRow): boolean {
    if (row.values.length > this.columns) throw new Error('more values than columns');
    const values: Value[] = [...row.values, ...Array<Value>(this.columns - row.values.length).fill(null)];
    if (this.ipk !== -1) values[this.ipk] = row.rowid;
    return (this.ipk === -1 ? this.insert.run(row.rowid, ...values) : this.insert.run(...values)).changes > 0;
  }
}

class Transactions {
  private rows = 0;
  private bytes = 0;
  private open = false;

  constructor(private readonly db: Db) {}

  wrote(bytes: number): void {
    if (!this.open) {
      this.db.exec('BEGIN');
      this.open = true;
    }
    this.rows++;
    this.bytes += bytes;
    if (this.rows >= ROWS_PER_TRANSACTION || this.bytes >= BYTES_PER_TRANSACTION) this.commit();
  }

  commit(): void {
    if (this.open) this.db.exec('COMMIT');
    this.open = false;
    this.rows = 0;
    this.bytes = 0;
  }
}

function sizeOf(values: readonly Value[]): number {
  let n = 0;
  for (const v of values) n += typeof v === 'string' || Buffer.isBuffer(v) ? v.length : 8;
  return n;
}

/** Copy what is readable in `file` into `target` (a new, empty version-1 store). */
export function salvage(file: SqliteFile, target: Db): SalvageResult {
  const reader = new BtreeReader(file);
  const roots = new Map<string, { type: string; root: number }>();
  const schemaRow = (cell: TableRow): boolean => {
    const [type, name, table, root, sql] = cell.values;
    if (cell.values.length !== 5 || typeof name !== 'string' || typeof table !== 'string' || typeof root !== 'number' || !isTextOrNull(sql ?? null)) return false;
    if (type !== 'table' && type !== 'index' && type !== 'view' && type !== 'trigger') return false;
    if (root > 0 && !roots.has(name)) roots.set(name, { type, root });
    return true;
  };
  if (file.headerValid) reader.walk(1, false, schemaRow);
  // A damaged page of the schema itself: its other leaf pages are orphans; their rows name the roots.
  if (COPIED.some((table) => !roots.has(table))) reader.orphans(schemaRow);
  const result: SalvageResult = {
    records: 0,
    rawBytes: 0,
    fromOrphanPages: 0,
    conversations: 0,
    sources: 0,
    otherRows: 0,
    damagedRows: 0,
    unreadablePages: 0,
    lostRecords: null,
    missingTables: [],
    captureTimes: new Map(),
  };
  const tx = new Transactions(target);
  const writers = new Map<Copied, TableWriter>();
  const writerOf = (table: Copied): TableWriter => {
    let writer = writers.get(table);
    if (writer === undefined) writers.set(table, (writer = new TableWriter(target, table)));
    return writer;
  };
  const count = (table: Copied, row: TableRow, orphan: boolean): void => {
    if (table === 'conversation_records') {
      result.records++;
      result.rawBytes += (row.values[6] as Buffer).length;
      if (orphan) result.fromOrphanPages++;
    } else if (table === 'conversations') result.conversations++;
    else if (table === 'conversation_sources') result.sources++;
    else result.otherRows++;
  };
  const copy = (table: Copied, row: TableRow, orphan = false): void => {
    // Rows reached from a table's root are that table's (SQLite types loosely; the insert checks constraints),
    // except that recovery itself relies on the types of records, conversations and sources.
    const shape = orphan || CHECKED.has(table) ? SHAPES[table] : undefined;
    if (shape !== undefined && !shape(row.values)) {
      if (!orphan) result.damagedRows++;
      return;
    }
    if (skipped(table, row.values)) return;
    try {
      if (writerOf(table).write(row)) count(table, row, orphan);
    } catch {
      result.damagedRows++;
      return;
    }
    tx.wrote(sizeOf(row.values));
  };

  for (const table of COPIED) {
    const entry = roots.get(table);
    if (entry === undefined) {
      result.missingTables.push(table);
      continue;
    }
    reader.walk(entry.root, false, (row) => copy(table, row));
    tx.commit();
  }
  const times = roots.get('history_generations');
  if (times !== undefined) {
    reader.walk(times.root, false, (row) => {
      const [source, generation, , , first, last] = row.values;
      if (typeof source === 'string' && typeof generation === 'number') {
        result.captureTimes.set(`${source}\u0000${generation}`, [typeof first === 'number' ? first : null, typeof last === 'number' ? last : null]);
      }
    });
  }

  // Every other structure (indexes, the FTS tables, derived tables) is walked too, so that its pages are claimed.
  const retained = target.prepare('SELECT 1 FROM conversation_records WHERE id = ?').pluck();
  let candidates: LostRecord[] | null = null;
  for (const [name, { type, root }] of roots) {
    if ((COPIED as readonly string[]).includes(name) || name === 'history_generations') continue;
    if (type === 'index') {
      const lost: LostRecord[] = [];
      const badBefore = reader.stats.badPages + reader.stats.badCells;
      reader.walk(root, true, (values) => {
        if (name !== RECORDS_INDEX) return;
        const [source, generation, offset, id] = values;
        if (typeof source === 'string' && typeof generation === 'number' && typeof offset === 'number' && typeof id === 'number' && retained.get(id) === undefined) {
          lost.push({ id, source, generation, offset });
        }
      });
      // A damaged page of the index itself: which records it named is not known.
      if (name === RECORDS_INDEX) candidates = reader.stats.badPages + reader.stats.badCells === badBefore ? lost : null;
    } else {
      reader.walk(root, false, () => undefined);
    }
  }

  // Pages no live structure reaches: rows of the tables whose shape is unmistakable.
  // Records, conversations and sources have unmistakable shapes; another table's rows are taken only when its
  // root is lost and no other such table has the same shape.
  const wanted = [...new Set<Copied>(['conversation_records', 'conversations', 'conversation_sources', ...(result.missingTables as Copied[])])];
  reader.orphans((row) => {
    const matching = wanted.filter((table) => (SHAPES[table] as (v: Value[]) => boolean)(row.values));
    if (matching.length !== 1) return false;
    copy(matching[0] as Copied, row, true);
    return true;
  });
  tx.commit();

  result.lostRecords = candidates === null ? null : (candidates as LostRecord[]).filter((r) => retained.get(r.id) === undefined);
  result.unreadablePages = reader.stats.badPages;
  result.damagedRows += reader.stats.badCells;
  return result;
}
