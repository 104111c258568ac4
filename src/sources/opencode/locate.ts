// Where OpenCode keeps its databases (docs/formats.md §3.1): `opencode.db`
// (latest/beta channels) and `opencode-<channel>.db` in the data dir
// ($XDG_DATA_HOME/opencode or ~/.local/share/opencode), and $OPENCODE_DB
// (absolute, or relative to the data dir) when set. Every one found is
// captured: sessions of other channels, or from before OPENCODE_DB was set,
// are history too.

import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createHash } from 'node:crypto';
import type { SourceProblem } from '../../../protocols/service.ts';
import type { HistoryPaths } from '../../config/paths.ts';
import { fsPath, isBytesPath } from '../../os/byte-paths.ts';

export interface LocatedDb {
  readonly path: string;
  /** '' for <data>/opencode.db; otherwise distinguishes this database's record and cursor keys. */
  readonly tag: string;
}

const DB_NAME = /^opencode(-[A-Za-z0-9._-]+)?\.db$/;

export function tagFor(paths: HistoryPaths, path: string): string {
  if (dirname(path) === paths.opencodeDataDir) return basename(path) === 'opencode.db' ? '' : basename(path);
  return createHash('sha256').update(path).digest('hex').slice(0, 12);
}

/** OpenCode locations that exist but SQLite cannot open (not valid UTF-8), said in status instead of silently skipped. */
export async function unopenable(paths: HistoryPaths): Promise<SourceProblem[]> {
  const present: string[] = [];
  for (const path of [paths.opencodeDataDir, paths.opencodeDb]) {
    if (path !== null && isBytesPath(path) && (await lstat(fsPath(path)).catch(() => null)) !== null) present.push(path);
  }
  return present.map((path) => ({
      path,
      code: 'SOURCE_REFUSED',
      message: `${path} is not valid UTF-8: SQLite cannot open an OpenCode database there, so OpenCode is not captured; set XDG_DATA_HOME or OPENCODE_DB to a UTF-8 path`,
    }));
}

export async function locateDatabases(paths: HistoryPaths): Promise<LocatedDb[]> {
  const found = new Set<string>();
  if (paths.opencodeDb !== null && !isBytesPath(paths.opencodeDb)) found.add(paths.opencodeDb);
  if (isBytesPath(paths.opencodeDataDir)) return [...found].map((path) => ({ path, tag: tagFor(paths, path) }));
  let names: string[] = [];
  try {
    names = await readdir(paths.opencodeDataDir);
  } catch {
    names = []; // no OpenCode data dir: nothing to capture
  }
  for (const name of names.sort()) if (DB_NAME.test(name)) found.add(join(paths.opencodeDataDir, name));
  return [...found].map((path) => ({ path, tag: tagFor(paths, path) }));
}
