// Which store readers use (specification, "Lossless split migration"): until
// the legacy bridge.db history has been migrated and verified, every reader
// (search, conversation pages, MCP, dashboard) reads the legacy tables in
// bridge.db; afterwards, history.db. A home without legacy history tables has
// nothing to migrate and reads history.db at once.

import { existsSync } from 'node:fs';
import type { HistoryPaths } from '../config/paths.ts';
import type { Db } from './open.ts';
import { openReader, READER_BUSY_TIMEOUT_MS } from './open.ts';
import { openQueryOnly } from '../sqlite/open.ts';

export type ReadSource = 'history' | 'legacy' | 'none';

export interface ReadStore {
  readonly db: Db | null;
  readonly source: ReadSource;
  readonly path: string | null;
}

/** history.db's migration row says the legacy copy is verified. */
export function migrationVerified(history: Db): boolean {
  try {
    const row = history.prepare('SELECT status FROM history_migration WHERE version = 1').get() as { status: string } | undefined;
    return row?.status === 'verified';
  } catch {
    return false;
  }
}

/** Open bridge.db the way every reader must: read-only, query_only, short busy timeout. */
export function openLegacyReader(path: string): Db | null {
  if (!existsSync(path)) return null;
  return openQueryOnly(path, READER_BUSY_TIMEOUT_MS);
}

export function hasLegacyHistory(bridge: Db): boolean {
  return bridge.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN ('history_documents', 'conversation_records')").get() !== undefined;
}

/** Open the store readers should use now. The caller closes `db`. */
export function openReadStore(paths: HistoryPaths): ReadStore {
  const history = openReader(paths.historyDb);
  if (history !== null && migrationVerified(history)) return { db: history, source: 'history', path: paths.historyDb };
  const bridge = openLegacyReader(paths.bridgeDb);
  if (bridge !== null && hasLegacyHistory(bridge)) {
    history?.close();
    return { db: bridge, source: 'legacy', path: paths.bridgeDb };
  }
  bridge?.close();
  if (history !== null) return { db: history, source: 'history', path: paths.historyDb };
  return { db: null, source: 'none', path: null };
}
