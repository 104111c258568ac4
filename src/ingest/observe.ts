// One stat of a source file, as an Observation or a problem. lstat, so a
// file replaced by a symbolic link is refused rather than followed.
// observeSync is the same stat on the calling thread: for the idle poll,
// where a thread-pool round trip (two thread wake-ups and an event-loop
// wake-up) costs many times the stat itself (see LIMITS.pollStatsPerTick).

import { lstatSync, type Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import type { HistoryErrorShape } from '../../protocols/errors.ts';
import { HistoryError, serializeError, toHistoryError } from '../../protocols/errors.ts';
import { fsPath } from '../os/byte-paths.ts';
import { fileKind, notRegular } from '../os/source-file.ts';
import { identityOf } from '../sources/identity.ts';
import type { Observation } from './source-table.ts';

type Observed = [Observation | null, HistoryErrorShape | null];

function observed(path: string, stat: Stats): Observed {
  if (stat.isSymbolicLink()) {
    return [null, serializeError(new HistoryError('SOURCE_REFUSED', `${path} is a symbolic link; links are not followed`, { path }))];
  }
  if (!stat.isFile()) return [null, serializeError(notRegular(path, fileKind(stat)))];
  return [{ identity: identityOf(stat), size: stat.size, mtimeMs: stat.mtimeMs }, null];
}

const failed = (error: unknown): Observed => [null, serializeError(toHistoryError(error, 'stat source'))];

export async function observe(path: string): Promise<Observed> {
  try {
    return observed(path, await lstat(fsPath(path)));
  } catch (error) {
    return failed(error);
  }
}

export function observeSync(path: string): Observed {
  try {
    return observed(path, lstatSync(fsPath(path)));
  } catch (error) {
    return failed(error);
  }
}
