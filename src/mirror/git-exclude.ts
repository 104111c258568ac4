// Git exclusion of a project's `.agent-bridge/` folder (specification: the
// folder is excluded through Git's local exclude file, the common Git
// directory's for linked worktrees; the user's .gitignore is never changed).
//
// The exclude file is the one Git names:
//   git rev-parse --path-format=absolute --git-path info/exclude
// It gets exactly one `/.agent-bridge/` line, appended once (never rewritten),
// and `git check-ignore` must then confirm that Git ignores the folder. When
// any of it cannot be done (git missing, a read-only or locked exclude file,
// a rule that re-includes the folder), the project is deferred with the
// reason; a link on the way is a refusal. A directory that is not a Git
// repository needs no exclusion. Git runs as a child process, asynchronously,
// never inside a transaction.

import { execFile } from 'node:child_process';
import { constants, openSync, closeSync, writeSync, accessSync, readFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { lstatOrNull } from './links.ts';
import { PROJECT_FOLDER } from './location.ts';
import { deferred, errorText, refused, type MirrorProblem } from './problem.ts';

export const EXCLUDE_LINE = `/${PROJECT_FOLDER}/`;
const GIT_TIMEOUT_MS = 10_000;

export type Exclusion =
  /** Not a Git repository: nothing to exclude. */
  | { readonly kind: 'none' }
  /** Git ignores the folder through `exclude` (the line was there, or was appended now). */
  | { readonly kind: 'git'; readonly exclude: string; readonly appended: boolean };

interface GitRun {
  readonly code: number | 'missing' | 'timeout';
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment git runs in: the caller's, without GIT_* variables that would point it elsewhere, in the C locale. */
function gitEnv(env: Readonly<Record<string, string | undefined>>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && !key.startsWith('GIT_')) out[key] = value;
  return { ...out, LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' };
}

function git(root: string, args: readonly string[], env: Readonly<Record<string, string | undefined>>, gitBinary: string): Promise<GitRun> {
  return new Promise((resolve) => {
    execFile(gitBinary, ['-C', root, ...args], { env: gitEnv(env), timeout: GIT_TIMEOUT_MS, encoding: 'utf8', windowsHide: true }, (error, stdout, stderr) => {
      if (error === null) return resolve({ code: 0, stdout, stderr });
      const code = (error as { code?: unknown }).code;
      if (code === 'ENOENT') return resolve({ code: 'missing', stdout: '', stderr: '' });
      if ((error as { killed?: boolean }).killed === true) return resolve({ code: 'timeout', stdout, stderr });
      resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr: stderr || error.message });
    });
  });
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.replace(/^fatal:\s*/, '') ?? '';
}

function hasLine(text: string): boolean {
  return text.split('\n').some((line) => line.replace(/\r$/, '').trim() === EXCLUDE_LINE);
}

/** Whether the mode bits and the process allow writing `path` (a read-only file is respected, also by root). */
function writable(path: string, mode: number): boolean {
  if ((mode & 0o222) === 0) return false;
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Append the exclude line (creating info/ and the file when missing), never through a link. */
function append(exclude: string, existing: string): MirrorProblem | null {
  const dir = dirname(exclude);
  const dirInfo = lstatOrNull(dir);
  if (dirInfo?.isSymbolicLink() === true) return refused(dir);
  if (dirInfo === null) {
    try {
      mkdirSync(dir);
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') return deferred(dir, `cannot create ${dir}: ${errorText(error)}`);
    }
  } else if (!writable(dir, dirInfo.mode) && lstatOrNull(exclude) === null) {
    return deferred(dir, `${dir} is not writable: cannot create the exclude file`);
  }
  const info = lstatOrNull(exclude);
  if (info?.isSymbolicLink() === true) return refused(exclude);
  if (info !== null && !info.isFile()) return deferred(exclude, `${exclude} is not a regular file`);
  if (info !== null && !writable(exclude, info.mode)) return deferred(exclude, `${exclude} is read-only: cannot add ${EXCLUDE_LINE} to it`);
  const text = `${existing === '' || existing.endsWith('\n') ? '' : '\n'}${EXCLUDE_LINE}\n`;
  let fd: number;
  try {
    fd = openSync(exclude, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    if ((error as { code?: string }).code === 'ELOOP') return refused(exclude);
    return deferred(exclude, `cannot write ${exclude}: ${errorText(error)}`);
  }
  try {
    writeSync(fd, text);
  } catch (error) {
    return deferred(exclude, `cannot write ${exclude}: ${errorText(error)}`);
  } finally {
    closeSync(fd);
  }
  return null;
}

export interface ExclusionOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Only report what would happen (no write): `agent-bridge mirrors` without a running service. */
  readonly dryRun?: boolean;
  readonly git?: string;
}

/** Make sure Git ignores `<root>/.agent-bridge/`, or say why it cannot be made sure of. */
export async function ensureExcluded(root: string, options: ExclusionOptions): Promise<Exclusion | MirrorProblem> {
  const binary = options.git ?? 'git';
  const dotGit = join(root, '.git');
  // The path as Git spells it (relative to root, links not resolved), then the absolute one Git names.
  const where = await git(root, ['rev-parse', '--git-path', 'info/exclude', '--path-format=absolute', '--git-path', 'info/exclude'], options.env, binary);
  if (where.code === 'missing') {
    return lstatOrNull(dotGit) === null ? { kind: 'none' } : deferred(dotGit, `git is not installed (or not on PATH): cannot ensure that ${root} ignores ${EXCLUDE_LINE}`);
  }
  if (where.code === 'timeout') return deferred(root, `git did not answer within ${GIT_TIMEOUT_MS / 1000} s in ${root}`);
  if (where.code !== 0) {
    if (/not a git repository/i.test(where.stderr) && lstatOrNull(dotGit) === null) return { kind: 'none' };
    return deferred(root, `git cannot locate the exclude file of ${root}: ${firstLine(where.stderr)}`);
  }
  const [spelled, absolute] = where.stdout.split('\n').map((line) => line.trim());
  if (spelled === undefined || spelled === '' || absolute === undefined || absolute === '') return deferred(root, `git named no exclude file for ${root}`);
  // Git resolves links in the absolute form: check the path it is reached by, file, info/ and the Git dir.
  const exclude = resolve(root, spelled);
  for (const path of [dirname(dirname(exclude)), dirname(exclude), exclude]) if (lstatOrNull(path)?.isSymbolicLink() === true) return refused(path);
  if (exclude !== absolute) return refused(exclude, `${exclude} resolves to ${absolute} through a symbolic link: nothing is written through it`);
  if (lstatOrNull(`${exclude}.lock`) !== null) return deferred(exclude, `${exclude} is locked (${exclude}.lock exists)`);

  let existing = '';
  try {
    existing = readFileSync(exclude, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') return deferred(exclude, `cannot read ${exclude}: ${errorText(error)}`);
  }
  let appended = false;
  if (!hasLine(existing)) {
    if (options.dryRun === true) {
      const info = lstatOrNull(exclude) ?? lstatOrNull(dirname(exclude));
      const target = lstatOrNull(exclude) === null ? dirname(exclude) : exclude;
      if (info !== null && !writable(target, info.mode)) return deferred(exclude, `${exclude} is read-only: cannot add ${EXCLUDE_LINE} to it`);
      return { kind: 'git', exclude, appended: false };
    }
    const problem = append(exclude, existing);
    if (problem !== null) return problem;
    appended = true;
  }
  const check = await git(root, ['check-ignore', '-q', '--no-index', `${PROJECT_FOLDER}/`], options.env, binary);
  if (check.code === 0) return { kind: 'git', exclude, appended };
  if (check.code === 1) {
    return deferred(exclude, `Git does not ignore ${PROJECT_FOLDER}/ in ${root} although ${exclude} has ${EXCLUDE_LINE} (a .gitignore rule re-includes it?)`);
  }
  return deferred(root, `git check-ignore failed in ${root}: ${firstLine(check.stderr) || String(check.code)}`);
}
