// Project identity (specification, "Project folder and settings"): the
// canonical Git project root, so that linked worktrees and subfolders share
// the main checkout's identity; a non-Git directory is its physical path; a
// path that does not exist on this machine keeps its recorded form.
//
// Read from the file system (.git files and directories, `commondir`), not by
// running git: it is cheaper, needs no git binary, and never runs inside a
// write transaction because it is async.

import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function readText(path: string): Promise<string | null> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return null;
  }
}

/** The main checkout of the repository whose work tree contains `.git` at `dir`, or null. */
async function rootAt(dir: string): Promise<string | null> {
  const dotGit = join(dir, '.git');
  let info;
  try {
    info = await stat(dotGit);
  } catch {
    return null;
  }
  if (info.isDirectory()) return dir;
  if (!info.isFile()) return null;
  // A linked worktree or submodule: ".git" is a file naming the real git dir.
  const pointer = await readText(dotGit);
  const match = pointer === null ? null : /^gitdir:\s*(.+)$/m.exec(pointer);
  if (match === null) return dir;
  const gitDir = resolve(dir, (match[1] as string).trim());
  const common = await readText(join(gitDir, 'commondir'));
  if (common === null) return dir; // a submodule: its own project
  const commonDir = resolve(gitDir, common);
  return (await isDirectory(commonDir)) ? await realpath(dirname(commonDir)).catch(() => dirname(commonDir)) : dir;
}

export async function canonicalProject(path: string): Promise<string> {
  if (!isAbsolute(path)) return path;
  let physical: string;
  try {
    physical = await realpath(path);
  } catch {
    return path; // not on this machine: keep the recorded form
  }
  for (let dir = physical; ; dir = dirname(dir)) {
    const root = await rootAt(dir);
    if (root !== null) return root;
    if (dirname(dir) === dir) return physical;
  }
}

/** canonicalProject with a bounded cache (cwds repeat across thousands of records). */
export class ProjectResolver {
  private readonly cache = new Map<string, Promise<string>>();
  constructor(private readonly capacity = 4096) {}

  resolve(cwd: string): Promise<string> {
    let hit = this.cache.get(cwd);
    if (hit === undefined) {
      if (this.cache.size >= this.capacity) this.cache.delete(this.cache.keys().next().value as string);
      hit = canonicalProject(cwd);
      this.cache.set(cwd, hit);
    }
    return hit;
  }
}
