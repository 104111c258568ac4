// One named store file, opened read-only for `search --db` and
// `conversation --db`: a project replica (conversations-<hash>.db) or a
// history.db. Anything else is refused with the reason; nothing is created.

import { existsSync, statSync } from 'node:fs';
import { HistoryError } from '../../protocols/errors.ts';
import { isCorruption, openReplicaReader, replicaInfo } from '../mirror/replica-store.ts';
import { openQueryOnly } from '../sqlite/open.ts';
import { openReader, READER_BUSY_TIMEOUT_MS } from '../store/open.ts';
import type { ReadStore } from '../store/read-path.ts';

export function openStoreFile(path: string): ReadStore {
  if (!existsSync(path)) throw new HistoryError('BAD_INPUT', `${path} does not exist`, { path });
  if (!statSync(path).isFile()) throw new HistoryError('BAD_INPUT', `${path} is not a file`, { path });
  let replica: boolean;
  try {
    const probe = openQueryOnly(path, READER_BUSY_TIMEOUT_MS);
    try {
      replica = replicaInfo(probe) !== null;
    } finally {
      probe.close();
    }
  } catch (error) {
    if (isCorruption(error)) throw new HistoryError('BAD_INPUT', `${path} is not a SQLite database`, { path });
    throw error;
  }
  if (replica) return { db: openReplicaReader(path), source: 'replica', path };
  const db = openReader(path);
  if (db === null || !db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'conversation_records'").get()) {
    db?.close();
    throw new HistoryError('BAD_INPUT', `${path} is neither an agent-bridge project replica nor a history.db`, { path });
  }
  return { db, source: 'history', path };
}
