// `agent-bridge doctor --rebuild-fts`: the fix doctor names for a damaged
// full-text index. The index is derived data: FTS5's 'rebuild' reads every
// document's text again (history_document_text, which derives span documents'
// text with history_span_text, a function only our connections have, so the
// sqlite3 shell cannot run it) and nothing retained is touched. It takes the
// writer lock, so it refuses while a service writes.

import type { HistoryPaths } from '../config/paths.ts';
import { HistoryError } from '../../protocols/errors.ts';
import { hasTable, openWriter } from '../store/open.ts';
import { WriterLock } from '../store/writer-lock.ts';
import { existsSync } from 'node:fs';

export interface FtsRebuild {
  readonly documents: number;
  readonly ms: number;
}

export function rebuildFtsIndex(paths: HistoryPaths): FtsRebuild {
  if (!existsSync(paths.historyDb)) throw new HistoryError('BAD_INPUT', `no history has been captured yet (${paths.historyDb} does not exist)`);
  let lock: WriterLock;
  try {
    lock = WriterLock.acquire(paths.writerLock);
  } catch (error) {
    if (error instanceof HistoryError && error.code === 'WRITER_LOCKED') {
      throw new HistoryError('WRITER_LOCKED', `${error.message}: stop it, then run agent-bridge doctor --rebuild-fts again`, { path: paths.historyDb });
    }
    throw error;
  }
  try {
    const db = openWriter(paths.historyDb);
    try {
      if (!hasTable(db, 'history_fts')) throw new HistoryError('BAD_INPUT', `${paths.historyDb} has no full-text index (it was created with AGENT_BRIDGE_HISTORY_FTS=off): nothing to rebuild`);
      const started = performance.now();
      db.exec("INSERT INTO history_fts(history_fts) VALUES('rebuild')");
      const documents = db.prepare('SELECT count(*) FROM history_documents').pluck().get() as number;
      return { documents, ms: performance.now() - started };
    } finally {
      db.close();
    }
  } finally {
    lock.release();
  }
}
