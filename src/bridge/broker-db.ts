// Reading the broker's databases (bridge.db, archive.db) without ever
// writing them (specification, "Local conversation storage": ingestion opens
// the broker database read-only with query_only=ON; it cannot take the
// broker database's write lock; busy timeouts on both).
//
// Connections are read-only and query-only, with a short busy timeout: the
// broker keeps its 3 s timeout, and a read in WAL mode never waits for its
// writer anyway; only WAL recovery can make a reader wait, and then the
// batch is retried later rather than stalling the worker. Every statement is
// its own short read transaction, so a checkpoint is never held back for long.
//
// Both files are WAL databases the broker normally has open (its -wal and
// -shm exist). When no broker runs (`agent-bridge ingest --once`), SQLite's
// read-only open creates an empty -wal and a -shm beside the file, the same
// companions the broker creates itself when it starts; the database file's
// bytes are never changed (a test checks them).

import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { HistoryError } from '../../protocols/errors.ts';
import { openQueryOnly } from '../sqlite/open.ts';

export type BrokerDb = Database.Database;

export const BROKER_BUSY_TIMEOUT_MS = 100;

/** Open `path` read-only and query-only; null when there is no such file yet. */
export function openBrokerDb(path: string): BrokerDb | null {
  try {
    if (!statSync(path).isFile()) return null;
  } catch {
    return null;
  }
  return openQueryOnly(path, BROKER_BUSY_TIMEOUT_MS);
}

export function tableNames(db: BrokerDb): Set<string> {
  return new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
}

/** Which broker tables a bridge.db has (they arrived with different schema versions). */
export interface BridgeTables {
  readonly messages: boolean;
  /** v8 (0.29.17): envelope keys filled by triggers on messages. */
  readonly envelopes: boolean;
  readonly decisions: boolean;
  readonly sessionBindings: boolean;
  readonly peerNames: boolean;
}

export function bridgeTables(db: BrokerDb): BridgeTables {
  const names = tableNames(db);
  return {
    messages: names.has('messages'),
    envelopes: names.has('conversation_envelopes'),
    decisions: names.has('decisions'),
    sessionBindings: names.has('session_bindings'),
    peerNames: names.has('peer_names'),
  };
}

/** A broker database problem as a HistoryError (busy is retried, anything else reported). */
export function brokerError(error: unknown, path: string, step: string): HistoryError {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))) {
    return new HistoryError('SOURCE_BUSY', `${path} is busy; the bridge records are read again shortly`, { path, step });
  }
  return new HistoryError('SOURCE_UNREADABLE', `cannot read ${path}: ${(error as Error).message ?? String(error)}`, { path, step, cause: error });
}
