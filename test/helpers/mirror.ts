// Project-mirror test helpers: real Git repositories in temp dirs, Claude
// transcripts whose cwd names them, and every row of a replica in a form
// that can be compared (by natural keys: rowids of conversations and
// documents are each replica's own).

import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_FOLDER, replicaName } from '../../src/mirror/location.ts';
import { sha256, tempDir } from './home.ts';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A Git repository with one commit (its real path), optionally with a linked worktree. */
export function repository(name = 'repo', options: { worktree?: boolean } = {}): { root: string; worktree: string | null } {
  const parent = tempDir('abh-git-');
  const root = join(parent, name);
  mkdirSync(join(root, 'src', 'deep'), { recursive: true });
  writeFileSync(join(root, 'src', 'deep', 'file.txt'), 'tracked\n');
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'init');
  let worktree: string | null = null;
  if (options.worktree === true) {
    worktree = join(parent, `${name}-linked`);
    git(root, 'worktree', 'add', '-q', worktree, '-b', 'feature');
    mkdirSync(join(worktree, 'pkg'), { recursive: true });
    worktree = realpathSync(worktree);
  }
  return { root: realpathSync(root), worktree };
}

export interface SessionSpec {
  readonly session: string;
  /** The working directory the records name (omitted: records without cwd). */
  readonly cwd?: string;
  readonly lines: number;
  /** A word planted in every line (searchable). */
  readonly word: string;
  /** Characters of filler per line. */
  readonly fill?: number;
}

/** Write (or extend) a Claude Code transcript in `<home>/.claude/projects/`. */
export function claudeSession(home: string, spec: SessionSpec, options: { append?: boolean } = {}): string {
  const dir = join(home, '.claude', 'projects', 'mirror-test');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${spec.session}.jsonl`);
  const start = options.append === true && existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0;
  let text = '';
  for (let i = start; i < start + spec.lines; i++) {
    const record: Record<string, unknown> = {
      type: i % 2 === 0 ? 'user' : 'assistant',
      message: { role: i % 2 === 0 ? 'user' : 'assistant', content: `${spec.word} line ${i} ${'lorem ipsum '.repeat(Math.ceil((spec.fill ?? 200) / 12))}` },
      sessionId: spec.session,
      uuid: `${spec.session}-${i}`,
      timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    };
    if (spec.cwd !== undefined) record.cwd = spec.cwd;
    text += `${JSON.stringify(record)}\n`;
  }
  writeFileSync(file, text, { flag: options.append === true ? 'a' : 'w' });
  return file;
}

/** Where the physical default home puts a project's replica. */
export function projectReplica(project: string): string {
  return join(project, PROJECT_FOLDER, replicaName(project));
}

export function withReplica<T>(path: string, read: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

export interface ReplicaRows {
  readonly conversations: unknown[];
  readonly records: unknown[];
  readonly documents: unknown[];
  readonly refs: unknown[];
  readonly facets: unknown[];
  readonly tags: unknown[];
  readonly sessions: unknown[];
  readonly bindings: unknown[];
  readonly memberships: unknown[];
  readonly projects: unknown[];
  readonly cursors: unknown[];
}

/** Every row a replica holds, by natural keys, in a stable order. */
export function replicaRows(path: string): ReplicaRows {
  return withReplica(path, (db) => {
    const all = (sql: string): unknown[] => db.prepare(sql).all();
    return {
      conversations: all('SELECT id, agent, session, parent, project, job, kind FROM conversations ORDER BY id'),
      records: (db.prepare('SELECT id, source, generation, offset, conversation, at, raw, body, part FROM conversation_records ORDER BY id').all() as Array<{ raw: Buffer }>).map((r) => ({
        ...r,
        raw: sha256(r.raw),
      })),
      documents: all('SELECT id, kind, agent, at, body, folded, link, message, job, run, session, cursor FROM history_documents ORDER BY id'),
      refs: all('SELECT d.id AS doc, r.record, c.id AS conversation, r.line FROM history_document_refs r JOIN history_documents d ON d.rowid = r.doc JOIN conversations c ON c.rowid = r.conversation ORDER BY d.id'),
      facets: all('SELECT d.id, x.agent, x.kind, x.at FROM history_document_facets x JOIN history_documents d ON d.rowid = x.doc ORDER BY d.id'),
      tags: all('SELECT id, type, value FROM history_tags ORDER BY id, type, value'),
      sessions: all('SELECT alias, session, job FROM history_sessions ORDER BY alias'),
      bindings: all('SELECT session, agent, cwd, job, pending FROM conversation_bindings ORDER BY session, agent'),
      memberships: all('SELECT project, conversation FROM conversation_memberships ORDER BY project, conversation'),
      projects: all('SELECT project FROM conversation_projects ORDER BY project'),
      cursors: all('SELECT conversation, record FROM mirror_cursors ORDER BY conversation'),
    };
  });
}

/** Documents the replica's FTS index finds for `word`, and documents whose body holds it: equal when the index works. */
export function ftsCounts(path: string, word: string): { fts: number; bodies: number } {
  return withReplica(path, (db) => ({
    fts: db.prepare('SELECT count(*) FROM history_fts WHERE history_fts MATCH ?').pluck().get(`"${word}"`) as number,
    bodies: db.prepare("SELECT count(*) FROM history_documents WHERE body LIKE '%' || ? || '%'").pluck().get(word) as number,
  }));
}
