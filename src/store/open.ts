// Opening history.db: the writer connection (one per home, held by the
// history actor under the writer lock) and read-only connections (search,
// conversation pages, CLI, MCP).

import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { HistoryError } from '../../protocols/errors.ts';
import { TEXT_FORMATS, type TextFormat } from '../../protocols/records.ts';
import { type Db, openQueryOnly } from '../sqlite/open.ts';
import { damagedStore, onStore } from './store-errors.ts';
import { fold } from '../text/fold.ts';
import { GENERATIONS_SQL, fillGenerations } from './generations.ts';
import { spanText } from '../text/span-text.ts';
import { FACETS_FILL_SQL, FACETS_INDEXES_SQL, FACETS_SQL, OWN_INDEXES_SQL, SCHEMA_VERSION, STATS_FILL_SQL, STATS_SQL, schemaSql } from './schema.ts';
import { upgradeDocumentText } from './document-text-schema.ts';
import { prepared } from './statements.ts';
import { SOURCE_PATHS_SQL } from './source-paths-schema.ts';

/** A history.db connection: a plain SQLite connection (src/sqlite/open.ts). */
export type { Db } from '../sqlite/open.ts';

function isTextFormat(value: unknown): value is TextFormat {
  return (TEXT_FORMATS as readonly unknown[]).includes(value);
}

export const WRITER_BUSY_TIMEOUT_MS = 3000;
export const READER_BUSY_TIMEOUT_MS = 1000;

/** FTS5 can be switched off to exercise the literal fallback (tests, broken builds). */
export function ftsWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.AGENT_BRIDGE_HISTORY_FTS;
  return !(v === '0' || v === 'false' || v === 'off');
}

let ftsProbe: boolean | undefined;
/** Whether this SQLite build can create an fts5 table (probed once, in memory). */
export function ftsAvailable(): boolean {
  if (ftsProbe === undefined) {
    const probe = new Database(':memory:');
    try {
      probe.exec("CREATE VIRTUAL TABLE probe USING fts5(body, tokenize='unicode61')");
      ftsProbe = true;
    } catch {
      ftsProbe = false;
    } finally {
      probe.close();
    }
  }
  return ftsProbe;
}

/**
 * SQL functions every connection of ours has: fold (the literal search), and
 * history_span_text (a span document's text from its bytes and recipe; the
 * history_document_text view, hence history_fts's content, needs it).
 */
export function registerFunctions(db: Db): void {
  db.function('fold', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? fold(text) : null));
  // Four arguments in the view of stores written before TextRecipe.reach (until their writer upgrades it), five since.
  db.function('history_span_text', { deterministic: true, varargs: true }, (bytes: unknown, format: unknown, carry: unknown, trimmed: unknown, reach: unknown) => {
    if (!(bytes instanceof Uint8Array) || !isTextFormat(format)) return null;
    const recipe = { format, carry: typeof carry === 'string' ? carry : null, trimmed: Number(trimmed) === 1 };
    return spanText(bytes, reach === 'head' || reach === 'whole' ? { ...recipe, reach } : recipe);
  });
}

function assertVersion(db: Db, path: string): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new HistoryError(
      'SCHEMA_TOO_NEW',
      `unsupported history store version: ${version} (this build understands ${SCHEMA_VERSION}); ${path} was written by a newer agent-bridge and is left untouched`,
      { path },
    );
  }
  // Version 0 is a new, empty file; one that already holds tables is some other database put in history.db's place.
  if (version === 0) {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name LIMIT 4").pluck().all() as string[];
    if (tables.length > 0) throw damagedStore(path, new Error(`it is not a history store: it holds other tables (${tables.join(', ')}${tables.length === 4 ? ', ...' : ''})`));
  }
  return version;
}

/**
 * The page size of a new history.db; a store made with another keeps it.
 * Records are up to 512 KiB, stored in overflow pages, and every commit
 * rewrites the b-tree pages it touches into the WAL: with 16 KiB pages it
 * writes a record in a quarter as many pages as with SQLite's default of
 * 4 KiB. One capture of the 1 GiB corpus each: 79.7 s against 87.7 s, the
 * writer thread's CPU 51.5 s against 61.6 s, the store 2.6 % larger; at
 * 64 KiB, 88.6 s, batch p99 83 ms, the store 14 % larger.
 */
export const NEW_STORE_PAGE_BYTES = 16384;

/**
 * WAL bytes after which a commit checkpoints (SQLite counts pages: its
 * default of 1000 is 4 MB of 4 KiB pages). The commit that checkpoints copies
 * them into the file and syncs it, so this bounds its extra time whatever the
 * page size: with 16 KiB pages and SQLite's 1000, a capture's batch p99 was
 * 50.3–51.2 ms; at 4 MiB, 27.9 ms in the same time.
 */
export const CHECKPOINT_WAL_BYTES = 4 * 1024 * 1024;

/** SQLite's page cache of a writable connection, in KiB (the migration's copy and checks read back what they wrote). */
export const WRITER_CACHE_KIB = 32768;

export interface WriterOptions {
  /** Page cache in KiB (default WRITER_CACHE_KIB). */
  readonly cacheKiB?: number;
  /** WAL bytes after which a commit checkpoints (default CHECKPOINT_WAL_BYTES). */
  readonly checkpointWalBytes?: number;
  /** Create the FTS table (default: when available and not switched off). */
  readonly fts?: boolean;
  /** Create a new store in the layout of earlier versions, every document body stored (schema.ts). */
  readonly storedBodies?: boolean;
}

/**
 * Open (creating if needed) the writable store. The caller must hold the
 * writer lock: schema creation and every later write assume a single writer.
 */
export function openWriter(path: string, options: WriterOptions = {}): Db {
  return onStore(path, () => openWritable(path, options));
}

function openWritable(path: string, options: WriterOptions): Db {
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${WRITER_BUSY_TIMEOUT_MS}`);
    assertVersion(db, path);
    // Before WAL mode and the first table: later, SQLite changes a page size only by rebuilding the file.
    if (db.pragma('page_count', { simple: true }) === 0) db.pragma(`page_size = ${NEW_STORE_PAGE_BYTES}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('temp_store = MEMORY');
    db.pragma(`cache_size = -${options.cacheKiB ?? WRITER_CACHE_KIB}`);
    db.pragma(`wal_autocheckpoint = ${Math.ceil((options.checkpointWalBytes ?? CHECKPOINT_WAL_BYTES) / (db.pragma('page_size', { simple: true }) as number))}`);
    registerFunctions(db);
    const create = db.transaction(() => {
      if (assertVersion(db, path) === SCHEMA_VERSION) {
        db.exec(OWN_INDEXES_SQL);
        db.exec(SOURCE_PATHS_SQL);
        if (!hasTable(db, 'history_document_facets')) {
          db.exec(FACETS_SQL);
          db.exec(FACETS_FILL_SQL);
        }
        db.exec(FACETS_INDEXES_SQL);
        if (!hasTable(db, 'history_conversation_stats')) {
          db.exec(STATS_SQL);
          db.exec(STATS_FILL_SQL);
        }
        if (!hasTable(db, 'history_generations')) {
          db.exec(GENERATIONS_SQL);
          fillGenerations(db);
        }
        upgradeDocumentText(db);
        return;
      }
      const fts = options.fts ?? (ftsWanted() && ftsAvailable());
      db.exec(schemaSql({ fts, storedBodies: options.storedBodies }));
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    });
    create.immediate();
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Open the store read-only. Returns null when there is no store yet. Readers
 * never create, migrate or checkpoint anything.
 */
export function openReader(path: string): Db | null {
  if (!existsSync(path)) return null;
  return onStore(path, () => openReadable(path));
}

function openReadable(path: string): Db | null {
  const db = openQueryOnly(path, READER_BUSY_TIMEOUT_MS);
  try {
    const version = assertVersion(db, path);
    if (version !== SCHEMA_VERSION) {
      db.close();
      return null;
    }
    registerFunctions(db);
    return db;
  } catch (error) {
    if (db.open) db.close();
    throw error;
  }
}

export function hasTable(db: Db, name: string): boolean {
  return prepared(db, "SELECT 1 FROM sqlite_master WHERE name = ? AND type IN ('table', 'view')").get(name) !== undefined;
}
