// One consistent read view of bridge.db. The broker owns bridge.db: we open
// it read-only with query_only=ON (we cannot take its write lock, and never
// write to it, compact, checkpoint or back it up) and pin a read transaction so that
// every table of the snapshot comes from the same point in time. In WAL mode
// a pinned reader keeps the broker's checkpoints from reaching the end of the
// WAL, so the view is released under sustained pressure and a new one is
// taken later (saved chunks are then revalidated against it).

import { HistoryError } from '../../protocols/errors.ts';
import type { Db } from '../store/open.ts';
import { openLegacyReader } from '../store/read-path.ts';
import { assertUtf8 } from './legacy-tables.ts';

export class SourceView {
  private pinned = false;

  private constructor(readonly db: Db) {}

  /** Open bridge.db and start the read transaction (the view is fixed by its first read). */
  static pin(path: string): SourceView {
    const db = openLegacyReader(path);
    if (db === null) throw new HistoryError('STORE_IO', `${path} disappeared during the migration`, { path, step: 'open bridge.db' });
    const view = new SourceView(db);
    try {
      assertUtf8(db, path);
      db.prepare('BEGIN').run();
      view.pinned = true;
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (error) {
      view.release();
      throw error;
    }
    return view;
  }

  /** End the read transaction and close the connection (idempotent). */
  release(): void {
    if (!this.db.open) return;
    try {
      if (this.pinned && this.db.inTransaction) this.db.prepare('ROLLBACK').run();
    } finally {
      this.pinned = false;
      this.db.close();
    }
  }
}
