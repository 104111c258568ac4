// Project identity (specification, "Project folder and settings"): the
// canonical Git project root, so that linked worktrees and subfolders share
// the main checkout's identity; a non-Git directory is its physical path; a
// path that does not exist on this machine keeps its recorded form.
//
// Read from the file system (.git files and directories, `commondir`), not by
// running git: it is cheaper and needs no git binary. Ingestion resolves
// asynchronously, never inside a write transaction.

import { readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * The file system questions the resolution asks, answered by one of two
 * drivers: asynchronous (ingestion, which must not stall its thread) or
 * synchronous (a search's project filter: a handful of calls of a few
 * microseconds each, where a trip through the thread pool costs milliseconds).
 * Every answer is null when the path cannot be read.
 */
type Question = { readonly ask: 'stat'; readonly path: string } | { readonly ask: 'read'; readonly path: string } | { readonly ask: 'realpath'; readonly path: string };
type Answer = Stats | string | null;
type Resolution<T> = Generator<Question, T, Answer>;

function* statOf(path: string): Resolution<Stats | null> {
  return (yield { ask: 'stat', path }) as Stats | null;
}

function* textOf(path: string): Resolution<string | null> {
  const text = (yield { ask: 'read', path }) as string | null;
  return text === null ? null : text.trim();
}

function* realpathOf(path: string): Resolution<string | null> {
  return (yield { ask: 'realpath', path }) as string | null;
}

/** The main checkout of the repository whose work tree contains `.git` at `dir`, or null. */
function* rootAt(dir: string): Resolution<string | null> {
  const dotGit = join(dir, '.git');
  const info = yield* statOf(dotGit);
  if (info === null) return null;
  if (info.isDirectory()) return dir;
  if (!info.isFile()) return null;
  // A linked worktree or submodule: ".git" is a file naming the real git dir.
  const pointer = yield* textOf(dotGit);
  const match = pointer === null ? null : /^gitdir:\s*(.+)$/m.exec(pointer);
  if (match === null) return dir;
  const gitDir = resolve(dir, (match[1] as string).trim());
  const common = yield* textOf(join(gitDir, 'commondir'));
  if (common === null) return dir; // a submodule: its own project
  const commonDir = resolve(gitDir, common);
  if (!((yield* statOf(commonDir))?.isDirectory() ?? false)) return dir;
  return (yield* realpathOf(dirname(commonDir))) ?? dirname(commonDir);
}

function* resolution(path: string): Resolution<string> {
  if (!isAbsolute(path)) return path;
  const physical = yield* realpathOf(path);
  if (physical === null) return path; // not on this machine: keep the recorded form
  for (let dir = physical; ; dir = dirname(dir)) {
    const root = yield* rootAt(dir);
    if (root !== null) return root;
    if (dirname(dir) === dir) return physical;
  }
}

function unreadable(): null {
  return null;
}

export async function canonicalProject(path: string): Promise<string> {
  const steps = resolution(path);
  let next = steps.next();
  while (!next.done) {
    const q = next.value;
    const answer = await (q.ask === 'stat' ? stat(q.path) : q.ask === 'read' ? readFile(q.path, 'utf8') : realpath(q.path)).catch(unreadable);
    next = steps.next(answer);
  }
  return next.value;
}

/** canonicalProject, synchronously (see Question). */
export function canonicalProjectSync(path: string): string {
  const steps = resolution(path);
  let next = steps.next();
  while (!next.done) {
    const q = next.value;
    let answer: Answer;
    try {
      // realpathSync.native: the same resolution (case, Windows final paths) as the async driver's realpath.
      answer = q.ask === 'stat' ? (statSync(q.path, { throwIfNoEntry: false }) ?? null) : q.ask === 'read' ? readFileSync(q.path, 'utf8') : realpathSync.native(q.path);
    } catch {
      answer = null;
    }
    next = steps.next(answer);
  }
  return next.value;
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
