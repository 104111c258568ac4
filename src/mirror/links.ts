// Link refusal (specification: writable replicas, backup folders and exclude
// files refuse links in their paths). Every path the mirror writes is
// checked with lstat first, and files are opened with O_NOFOLLOW where Node
// allows it, so nothing is ever written through a symbolic link.

import { lstatSync, mkdirSync, realpathSync, type Stats } from 'node:fs';
import { absentFolder, deferred, errorText, refused, type MirrorProblem } from './problem.ts';

export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT' || (error as { code?: string }).code === 'ENOTDIR') return null;
    throw error;
  }
}

/** The first of `paths` that is a symbolic link, as a refusal; null when none is. */
export function linkAmong(paths: readonly string[]): MirrorProblem | null {
  for (const path of paths) {
    if (lstatOrNull(path)?.isSymbolicLink() === true) return refused(path);
  }
  return null;
}

/**
 * A folder the mirror writes into: it must be a real directory (not a link),
 * created (mode 0700: it holds conversation text) when `create` and missing.
 * Returns a problem, or null when the folder is there and usable.
 */
export function ensureFolder(folder: string, create: boolean): MirrorProblem | null {
  const info = lstatOrNull(folder);
  if (info?.isSymbolicLink() === true) return refused(folder);
  if (info !== null) return info.isDirectory() ? null : deferred(folder, `${folder} exists but is not a directory`);
  if (!create) return null;
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') return deferred(folder, `cannot create ${folder}: ${errorText(error)}`);
  }
  const made = lstatOrNull(folder);
  if (made?.isSymbolicLink() === true) return refused(folder);
  return made?.isDirectory() === true ? null : deferred(folder, `${folder} could not be created as a directory`);
}

/**
 * The directory a project replica is anchored at (the project root): it must
 * still be a directory whose real path is itself, so that no component on
 * the way is a link that leads out of it.
 */
export function checkAnchor(dir: string): MirrorProblem | null {
  const info = lstatOrNull(dir);
  if (info === null) return absentFolder(dir);
  if (info.isSymbolicLink()) return refused(dir);
  if (!info.isDirectory()) return deferred(dir, `${dir} is not a directory`);
  let real: string;
  try {
    real = realpathSync.native(dir);
  } catch (error) {
    return deferred(dir, `cannot resolve ${dir}: ${errorText(error)}`);
  }
  return real === dir ? null : refused(dir, `a folder on the way to ${dir} is a symbolic link (it resolves to ${real}): nothing is written through it`);
}
