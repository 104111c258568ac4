// Makes a make-corpus.mjs corpus's projects real Git repositories on this
// machine, for bench/mirror.ts. The corpus names its projects under
// /home/bench and /srv/repos, which do not exist here (so capture would keep
// their recorded form and the default home could write no replica). Those
// prefixes are rewritten, in place and at the same length (so every line and
// chunk keeps its size), to /tmp/i12-hb and /tmp/i12sr, two links into the
// bench's work folder, where each project becomes a Git repository with one
// commit. Done once per corpus (a marker file records it). The corpus is bench
// data outside the repository; the product never rewrites source files.

import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MOVES: ReadonlyArray<readonly [string, string, string]> = [
  ['/home/bench', '/tmp/i12-hb', 'hb'],
  ['/srv/repos', '/tmp/i12sr', 'sr'],
];
const MARKER = '.relocated-for-bench-mirror.json';

function replaceAll(bytes: Buffer, from: Buffer, to: Buffer): number {
  let n = 0;
  for (let at = bytes.indexOf(from); at !== -1; at = bytes.indexOf(from, at + from.length)) {
    to.copy(bytes, at);
    n++;
  }
  return n;
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
}

/** The projects (relocated cwd) of the corpus, made Git repositories; returns their paths (Windows ones left out). */
export function relocateCorpus(corpus: string, work: string, log: (line: string) => void): string[] {
  const manifest = JSON.parse(readFileSync(join(corpus, 'corpus-manifest.json'), 'utf8')) as { projects: Array<{ cwd: string }> };
  const projectsDir = join(work, 'projects');
  for (const [, to, name] of MOVES) {
    const target = join(projectsDir, name);
    mkdirSync(target, { recursive: true });
    if (existsSync(to) || (() => { try { return lstatSync(to).isSymbolicLink(); } catch { return false; } })()) {
      if (readlinkSync(to) !== target) throw new Error(`${to} exists and does not point at ${target}`);
    } else symlinkSync(target, to);
  }
  if (!existsSync(join(corpus, MARKER))) {
    let rewritten = 0;
    for (const path of [...files(join(corpus, '.claude')), ...files(join(corpus, '.codex'))]) {
      const bytes = readFileSync(path);
      let n = 0;
      for (const [from, to] of MOVES) n += replaceAll(bytes, Buffer.from(from), Buffer.from(to));
      if (n > 0) {
        writeFileSync(path, bytes);
        rewritten++;
      }
    }
    for (const path of files(join(corpus, '.local', 'share', 'opencode')).filter((p) => p.endsWith('.db'))) {
      const db = new Database(path);
      const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
      for (const [from, to] of MOVES) {
        if (tables.has('session')) db.prepare('UPDATE session SET directory = replace(directory, ?, ?)').run(from, to);
        if (tables.has('project')) db.prepare('UPDATE project SET worktree = replace(worktree, ?, ?)').run(from, to);
      }
      db.close();
    }
    writeFileSync(join(corpus, MARKER), JSON.stringify({ moves: MOVES, rewritten, at: new Date().toISOString() }));
    log(`relocated the corpus's project paths in ${rewritten} files`);
  }
  const projects: string[] = [];
  for (const { cwd } of manifest.projects) {
    const move = MOVES.find(([from]) => cwd.startsWith(`${from}/`));
    if (move === undefined) continue; // a Windows path: not on this machine
    const dir = `${move[1]}${cwd.slice(move[0].length)}`;
    if (!existsSync(join(dir, '.git'))) {
      mkdirSync(dir, { recursive: true });
      execFileSync('git', ['init', '-q'], { cwd: dir });
      execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'bench project'], { cwd: dir });
    }
    projects.push(dir);
  }
  return projects;
}
