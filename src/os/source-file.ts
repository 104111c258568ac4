// Opening a source file for reading. Source paths may be in the exact
// `bytes:` form (byte-paths.ts). The open never blocks: a FIFO put where a
// transcript was would block a plain open until some writer appeared, so the
// file is opened non-blocking and refused unless it is a regular file.

import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { HistoryError } from '../../protocols/errors.ts';
import { fsPath } from './byte-paths.ts';

/** What a non-regular file is, for messages ("a FIFO"). */
export function fileKind(stat: Pick<Stats, 'isDirectory' | 'isFIFO' | 'isSocket' | 'isSymbolicLink' | 'isCharacterDevice' | 'isBlockDevice' | 'isFile'>): string {
  if (stat.isFile()) return 'a regular file';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

export function notRegular(path: string, kind: string): HistoryError {
  return new HistoryError('SOURCE_REFUSED', `${path} is ${kind}, not a regular file; skipped`, { path });
}

export async function openSourceFile(path: string): Promise<FileHandle> {
  const handle = await open(fsPath(path), constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notRegular(path, fileKind(stat));
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}
