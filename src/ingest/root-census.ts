// A census of the source roots: whether each exists and can be listed, and
// how many files lie below it (links are not followed, as in capture). Used
// by `agent-bridge serve` to say what it found and by `agent-bridge doctor`.
// It walks with capture's own DiscoveryWalker, so it sees what capture sees,
// and only reads directory entries (plus, when asked, an access check per file).

import { constants } from 'node:fs';
import { access, opendir, stat } from 'node:fs/promises';
import type { HistoryPaths } from '../config/paths.ts';
import { DiscoveryWalker } from '../sources/discovery.ts';
import { fileSourceRoots, type NamedRoot } from '../sources/file-modules.ts';

export type RootState = 'found' | 'missing' | 'not-a-directory' | 'unreadable';

export interface PathProblem {
  readonly path: string;
  readonly code: string;
}

export interface RootCensus {
  readonly name: string;
  readonly root: string;
  readonly state: RootState;
  /** Why the root itself cannot be used (errno code), when it cannot. */
  readonly code: string | null;
  /** Regular files below the root. */
  readonly files: number;
  /** Directories below the root that could not be listed, and the first few of them. */
  readonly unreadableDirs: number;
  /** Files this process may not read (only counted with `checkFiles`), and the first few of them. */
  readonly unreadableFiles: number;
  readonly unreadable: readonly PathProblem[];
  /** Symbolic links below the root (never followed). */
  readonly links: number;
}

export interface CensusOptions {
  /** Check that every file can be opened for reading (one access() per file). */
  readonly checkFiles?: boolean;
}

const STEP_ENTRIES = 256;
const KEPT = 5;

function errno(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'EIO';
}

export async function censusOf(root: NamedRoot, options: CensusOptions = {}): Promise<RootCensus> {
  const empty = { name: root.name, root: root.root, files: 0, unreadableDirs: 0, unreadableFiles: 0, unreadable: [], links: 0 };
  try {
    // stat, not lstat: a root may be a link (a CLI's folder moved to another disk); links below it are refused.
    if (!(await stat(root.root)).isDirectory()) return { ...empty, state: 'not-a-directory', code: 'ENOTDIR' };
    await (await opendir(root.root)).close();
  } catch (error) {
    const code = errno(error);
    return { ...empty, state: code === 'ENOENT' ? 'missing' : 'unreadable', code };
  }
  const walker = new DiscoveryWalker([root], STEP_ENTRIES);
  let files = 0;
  let unreadableFiles = 0;
  const unreadable: PathProblem[] = [];
  try {
    for (;;) {
      const step = await walker.step();
      files += step.files.length;
      if (options.checkFiles === true) {
        for (const file of step.files) {
          try {
            await access(file.path, constants.R_OK);
          } catch (error) {
            unreadableFiles++;
            if (unreadable.length < KEPT) unreadable.push({ path: file.path, code: errno(error) });
          }
        }
      }
      if (step.passComplete) break;
    }
  } finally {
    await walker.close();
  }
  return {
    ...empty,
    state: 'found',
    code: null,
    files,
    unreadableDirs: walker.unreadableDirs,
    unreadableFiles,
    unreadable: [...walker.unreadable, ...unreadable].slice(0, KEPT),
    links: walker.refusedLinks,
  };
}

/** Every source root of `paths`, one after the other (each walk is streamed). */
export async function censusAll(paths: HistoryPaths, options: CensusOptions = {}): Promise<RootCensus[]> {
  const out: RootCensus[] = [];
  for (const root of fileSourceRoots(paths)) out.push(await censusOf(root, options));
  return out;
}
