// Session discovery: 32 sessions at a time, by the (time_updated, id) cursor,
// so a new or changed session is found without rescanning everything. Each
// observed session row is retained as one revision (the row as JSON, columns
// in table order) and named: its parent (parent_id, at any depth; a fork has
// none and is its own root) and its project (the directory, canonicalised
// here, outside any transaction).

import type { Position, Queries } from './queries.ts';
import { emitSlices, type SessionRef, type StepDeps, type StepOutput } from './step.ts';
import { opencodeConversation, rowCursorKey, sessionSource } from '../../keys/opencode.ts';
import { chooseSlot } from './slices.ts';
import { formatCursor, START } from './cursor.ts';

export const SESSIONS_PER_STEP = 32;

export interface SessionPage {
  /** Sessions of this page, in cursor order. */
  readonly sessions: readonly SessionRef[];
  readonly next: Position;
  /** The page was not full: discovery has caught up. */
  readonly done: boolean;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The directory a session's project comes from: session.directory, else its project's worktree. */
function directoryOf(q: Queries, row: Record<string, unknown>): string | null {
  const directory = text(row.directory);
  if (directory !== null) return directory;
  const project = text(row.project_id);
  const worktree = project === null ? null : q.worktreeOf(project);
  return worktree === null || worktree === '/' ? null : worktree;
}

/**
 * Retain the observed revision of a session row (unless retained already) and
 * name its parent and project. Returns the session with what was learned.
 */
export async function retainSession(
  out: StepOutput,
  deps: StepDeps,
  row: Record<string, unknown>,
  known: SessionRef | undefined,
  resolveProject: (cwd: string) => Promise<string>,
): Promise<SessionRef | null> {
  const id = row.id;
  const at = row.time_updated;
  if (typeof id !== 'string' || typeof at !== 'number') return null;
  const parent = text(row.parent_id);
  const directory = directoryOf(deps.q, row);
  const session: SessionRef = known ?? { id, parent: null, project: null, revision: null, cursors: { message: START, part: START } };
  session.parent = parent === id ? null : parent;
  session.project = directory === null ? session.project : await resolveProject(directory);
  if (session.revision !== at) {
    const data = Buffer.from(JSON.stringify(row), 'utf8');
    const source = sessionSource(deps.tag, id, at);
    // A session row is small; its slices are taken whole, in one step.
    const slot = chooseSlot(deps.retained, source, data);
    if (!slot.complete) emitSlices(out, { source, session, table: 'session', part: id, at, data }, slot, true);
    out.cursors.set(rowCursorKey(deps.tag, 'session', id), formatCursor({ at, id, pending: null }));
    out.effects.push(() => {
      session.revision = at;
    });
  }
  out.countRow();
  if (session.parent !== null) out.links.push({ child: opencodeConversation(id), parent: opencodeConversation(session.parent) });
  return session;
}

export async function discoverSessions(
  out: StepOutput,
  deps: StepDeps,
  from: Position,
  known: (id: string) => SessionRef | undefined,
  resolveProject: (cwd: string) => Promise<string>,
): Promise<SessionPage> {
  const rows = deps.q.sessionsAfter(from, SESSIONS_PER_STEP);
  const sessions: SessionRef[] = [];
  let next = from;
  for (const row of rows) {
    const session = await retainSession(out, deps, row, typeof row.id === 'string' ? known(row.id) : undefined, resolveProject);
    if (session === null) continue;
    next = { at: row.time_updated as number, id: session.id };
    sessions.push(session);
  }
  return { sessions, next, done: rows.length < SESSIONS_PER_STEP };
}
