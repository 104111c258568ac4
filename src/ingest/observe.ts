// One stat of a source file, as an Observation or a problem. lstat, so a
// file replaced by a symbolic link is refused rather than followed.

import { lstat } from 'node:fs/promises';
import type { HistoryErrorShape } from '../../protocols/errors.ts';
import { HistoryError, serializeError, toHistoryError } from '../../protocols/errors.ts';
import { fsPath } from '../os/byte-paths.ts';
import { fileKind, notRegular } from '../os/source-file.ts';
import { identityOf } from '../sources/identity.ts';
import type { Observation } from './source-table.ts';

export async function observe(path: string): Promise<[Observation | null, HistoryErrorShape | null]> {
  try {
    const stat = await lstat(fsPath(path));
    if (stat.isSymbolicLink()) {
      return [null, serializeError(new HistoryError('SOURCE_REFUSED', `${path} is a symbolic link; links are not followed`, { path }))];
    }
    if (!stat.isFile()) return [null, serializeError(notRegular(path, fileKind(stat)))];
    return [{ identity: identityOf(stat), size: stat.size, mtimeMs: stat.mtimeMs }, null];
  } catch (error) {
    return [null, serializeError(toHistoryError(error, 'stat source'))];
  }
}
