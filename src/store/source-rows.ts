// File source rows: `conversation_sources` (the legacy columns: generation,
// offset, identity, anchor) plus our cursor facts in `history_cursors` under
// `source:<id>` (head digest, last size and mtime, and the routing of a line
// that continues past the cursor). Both are written in the same transaction
// as the records they describe, so a cursor never runs ahead of its bytes.

import type { LineFacts, LineFormat } from '../../protocols/records.ts';
import type { SourceCursor, SourcePlan, StoredSource } from '../../protocols/sources.ts';
import { jobOfConversation } from '../keys/bridge.ts';
import type { Db } from './open.ts';
import { hasTable } from './open.ts';
import { prepared } from './statements.ts';

export const EMPTY_CURSOR: SourceCursor = {
  generation: 0,
  offset: 0,
  identity: '',
  anchor: '',
  head: '',
  size: -1,
  mtimeMs: -1,
  route: null,
  lineStart: 0,
  at: null,
};

const CURSOR_PREFIX = 'source:';

interface CursorExtra {
  head?: string;
  size?: number;
  mtimeMs?: number;
  route?: string | null;
  lineStart?: number;
  at?: number | null;
  facts?: LineFacts | null;
}

interface SourceRow {
  id: string;
  path: string;
  conversation: string;
  session: string | null;
  format: string;
  generation: number;
  offset: number;
  identity: string;
  anchor: string;
  checked: number;
  extra: string | null;
  fragment: string | null;
}

const EVENT_KINDS = new Set(['progress', 'report', 'approval']);

/**
 * The routing of a line a migrated cursor stopped inside, from the 0.29.17
 * ingestor's `durable-fragment:<source>:<generation>` cursor ({id, kind?,
 * offset}): a sidechain line keeps its native child, a context event its job
 * conversation and kind. Only used where no cursor of ours exists yet.
 */
function legacyRoute(row: SourceRow): CursorExtra {
  if (row.fragment === null) return {};
  try {
    const fragment = JSON.parse(row.fragment) as { id?: unknown; kind?: unknown; offset?: unknown };
    if (typeof fragment.id !== 'string' || fragment.offset !== row.offset) return {};
    const kind = typeof fragment.kind === 'string' && EVENT_KINDS.has(fragment.kind) ? (fragment.kind as LineFacts['kind']) : undefined;
    if (kind === undefined) return { route: fragment.id };
    const job = jobOfConversation(fragment.id);
    return { route: fragment.id, facts: { kind, job, event: true } };
  } catch {
    return {};
  }
}

/**
 * Whether a row's offset counts visits, not bytes of the file. The 0.29.17
 * ingestor registered the run logs of OpenCode jobs with format 'sqlite'
 * (chosen from the agent before the kind) and never read them; the format
 * stays, so such a row is told apart by having no cursor of ours yet (the
 * first commit or touch saves one, and from then on the offset counts bytes).
 */
function countsVisits(row: SourceRow): boolean {
  return row.format === 'sqlite' && !row.id.startsWith('opencode:') && row.extra === null;
}

/**
 * A stored row as capture reads it. Its cursor is where capture continues:
 * the scheduler's table and the writer, which commits a chunk only where
 * this cursor ends, both load it from here (a row counting visits starts at 0).
 */
function toStored(row: SourceRow): StoredSource {
  let extra: CursorExtra = {};
  if (row.extra !== null) {
    try {
      extra = JSON.parse(row.extra) as CursorExtra;
    } catch {
      extra = {};
    }
  } else {
    extra = legacyRoute(row);
  }
  return {
    id: row.id,
    path: row.path,
    conversation: row.conversation,
    session: row.session,
    format: row.format,
    checked: row.checked,
    cursor: countsVisits(row)
      ? EMPTY_CURSOR
      : {
          generation: row.generation,
          offset: row.offset,
          identity: row.identity,
          anchor: row.anchor,
          head: extra.head ?? '',
          size: extra.size ?? -1,
          mtimeMs: extra.mtimeMs ?? -1,
          route: extra.route ?? null,
          lineStart: extra.lineStart ?? row.offset,
          at: extra.at ?? null,
          facts: extra.facts ?? null,
        },
  };
}

const SELECT_SOURCES = `
  SELECT s.id, s.path, s.conversation, v.session AS session, s.format, s.generation, s.offset, s.identity, s.anchor, s.checked, c.cursor AS extra, f.cursor AS fragment
  FROM conversation_sources s LEFT JOIN conversations v ON v.id = s.conversation
  LEFT JOIN history_cursors c ON c.source = '${CURSOR_PREFIX}' || s.id
  LEFT JOIN history_cursors f ON f.source = 'durable-fragment:' || s.id || ':' || s.generation`;

/** Every file source (rows of other formats included; callers filter). */
export function loadSources(db: Db): StoredSource[] {
  return (db.prepare(SELECT_SOURCES).all() as SourceRow[]).map(toStored);
}

export function loadSource(db: Db, id: string): StoredSource | undefined {
  const row = prepared(db, `${SELECT_SOURCES} WHERE s.id = ?`).get(id) as SourceRow | undefined;
  return row === undefined ? undefined : toStored(row);
}

/** Ids of the sources now at `path`, else of those that were once captured there (most recent first). */
export function sourcesAtPath(db: Db, path: string): string[] {
  const now = prepared(db, 'SELECT id FROM conversation_sources WHERE path = ? ORDER BY id').pluck().all(path) as string[];
  if (now.length > 0 || !hasTable(db, 'history_source_paths')) return now;
  return prepared(db, 'SELECT source FROM history_source_paths WHERE path = ? ORDER BY first_seen DESC, source').pluck().all(path) as string[];
}

/** Writer-side statements over source rows; run inside the caller's transaction. */
export class SourceRows {
  private readonly insert;
  private readonly updatePath;
  private readonly updateCursor;
  private readonly updateIdentity;
  private readonly upsertExtra;
  private readonly insertPath;

  constructor(db: Db) {
    this.insertPath = db.prepare('INSERT OR IGNORE INTO history_source_paths (source, path, first_seen) VALUES (?, ?, ?)');
    this.insert = db.prepare(
      "INSERT OR IGNORE INTO conversation_sources (id, path, conversation, format, generation, offset, identity, anchor, checked) VALUES (?, ?, ?, ?, 0, 0, '', '', 0)",
    );
    this.updatePath = db.prepare('UPDATE conversation_sources SET path = ? WHERE id = ?');
    // identity is set apart, and only when it changes: an UPDATE that names an indexed column rewrites the index's
    // entry even when the value stays, and the identity index's page was then written by every commit (bench/wal-writes.ts).
    this.updateCursor = db.prepare('UPDATE conversation_sources SET generation = ?, offset = ?, anchor = ?, checked = checked + 1 WHERE id = ?');
    this.updateIdentity = db.prepare('UPDATE conversation_sources SET identity = ? WHERE id = ? AND identity <> ?');
    this.upsertExtra = db.prepare(
      'INSERT INTO history_cursors (source, cursor) VALUES (?, ?) ON CONFLICT(source) DO UPDATE SET cursor = excluded.cursor',
    );
  }

  /** Returns true when the row is new. */
  register(plan: SourcePlan): boolean {
    const added = this.insert.run(plan.id, plan.path, plan.conversation.id, plan.format satisfies LineFormat).changes > 0;
    this.insertPath.run(plan.id, plan.path, Date.now());
    return added;
  }

  /** The file moved (same identity, new path): keep capturing it as the same source; its old paths stay in its history. */
  move(id: string, path: string): void {
    this.updatePath.run(path, id);
    this.insertPath.run(id, path, Date.now());
  }

  saveCursor(id: string, cursor: SourceCursor): void {
    this.updateCursor.run(cursor.generation, cursor.offset, cursor.anchor, id);
    this.updateIdentity.run(cursor.identity, id, cursor.identity);
    const extra: CursorExtra = {
      head: cursor.head,
      size: cursor.size,
      mtimeMs: cursor.mtimeMs,
      route: cursor.route,
      lineStart: cursor.lineStart,
      at: cursor.at,
      ...(cursor.facts ? { facts: cursor.facts } : {}),
    };
    this.upsertExtra.run(CURSOR_PREFIX + id, JSON.stringify(extra));
  }
}
