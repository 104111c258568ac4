// Private copies of OpenCode databases that OpenCode has closed (see
// access.ts): the database file, and its -wal when one is left without its
// -shm, are copied into <bridge home>/opencode-snapshots/, the copy's WAL is
// folded into it and the copy switched to a rollback journal, so reading it
// creates nothing anywhere. A copy is only trusted if the original's files
// were identical before and after copying; otherwise the step is retried.
// The copy is reused while the original is unchanged and removed once the
// database is caught up (it is derived data: the only files this module
// deletes, all inside the snapshot directory).

import Database from 'better-sqlite3';
import { constants } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { HistoryError } from '../../../protocols/errors.ts';
import { contentKey, observeFiles, type DbFiles } from './access.ts';

let attempt = 0;

export class SnapshotStore {
  constructor(private readonly dir: string) {}

  pathFor(name: string): string {
    return join(this.dir, `${name}.db`);
  }

  /**
   * Copy the database at `source` to `pathFor(name)`. Returns the content key
   * of the copied state; throws SOURCE_BUSY when the files changed meanwhile.
   */
  async take(source: string, name: string, before: DbFiles): Promise<string> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const tmp = join(this.dir, `${name}.${process.pid}.${++attempt}.tmp`);
    try {
      await copyFile(source, tmp, constants.COPYFILE_FICLONE);
      if (before.wal !== null) await copyFile(`${source}-wal`, `${tmp}-wal`, constants.COPYFILE_FICLONE);
      const after = observeFiles(source);
      if (after === null || contentKey(after) !== contentKey(before)) {
        throw new HistoryError('SOURCE_BUSY', `${source} changed while it was being copied; retrying`, { path: source, step: 'snapshot provider database' });
      }
      const copy = new Database(tmp);
      try {
        copy.pragma('journal_mode = DELETE'); // folds the copied WAL in; our copy only
      } finally {
        copy.close();
      }
      await rename(tmp, this.pathFor(name));
      return contentKey(before);
    } finally {
      await removeDerived(tmp);
    }
  }

  async discard(name: string): Promise<void> {
    await removeDerived(this.pathFor(name));
  }

  /** Leftovers of an interrupted process (all derived). */
  async clear(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    for (const name of names) await rm(join(this.dir, name), { force: true });
  }
}

/** Remove a snapshot file and SQLite's companions of it. Only ever called on paths inside the snapshot directory. */
async function removeDerived(path: string): Promise<void> {
  for (const suffix of ['', '-wal', '-shm', '-journal']) await rm(`${path}${suffix}`, { force: true });
}
