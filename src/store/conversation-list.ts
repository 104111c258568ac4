// The conversation list: newest activity first, keyset-paged on (last record
// time, id), each row with its counts and its number of native children.
// history.db keeps the per-conversation figures in history_conversation_stats
// (trigger-maintained, see schema.ts); a legacy bridge.db, read before the
// migration is verified, has no such table and is aggregated instead (the
// same answer, slower on a large store).

import type { ConversationFamily, ConversationListOutput, ConversationListRequest, ConversationSummary } from '../../protocols/dashboard.ts';
import type { ConversationInfo } from '../../protocols/search.ts';
import type { Db } from './open.ts';
import { hasTable } from './open.ts';
import { prepared } from './statements.ts';

/** A list row is a summary as the SQL below selects it. */
type Row = ConversationSummary;


const AGGREGATE = `(SELECT conversation, min(at) AS first_at, max(at) AS last_at, count(*) AS records,
  coalesce(sum(length(raw)), 0) AS bytes, max(id) AS last_id FROM conversation_records GROUP BY conversation)`;

/** The per-conversation figures as a table expression: the stats table, or the aggregate on a legacy store. */
function statsOf(db: Db): string {
  return hasTable(db, 'history_conversation_stats') ? 'history_conversation_stats' : AGGREGATE;
}

function select(db: Db): string {
  return `SELECT c.id AS id, c.agent AS agent, c.session AS session, c.parent AS parent, c.project AS project, c.job AS job, c.kind AS kind,
      CAST(s.first_at AS INTEGER) AS firstAt, CAST(s.last_at AS INTEGER) AS lastAt, s.records AS records, s.bytes AS bytes, s.last_id AS lastRecord,
      (SELECT count(*) FROM conversations k WHERE k.parent = c.id) AS children
    FROM ${statsOf(db)} s JOIN conversations c ON c.id = s.conversation`;
}

export function cursorOf(row: Pick<ConversationSummary, 'lastAt' | 'id'>): string {
  return `${row.lastAt}:${row.id}`;
}

/**
 * One page of conversations, newest last record first. `projects` are the
 * stored project paths the request's project names (already matched by the
 * caller, as search does); an empty list with a project filter matches none.
 */
export function listConversations(db: Db, request: ConversationListRequest, projects: readonly string[] | null): ConversationListOutput {
  if (!hasTable(db, 'conversations') || !hasTable(db, 'conversation_records')) return { conversations: [], next: null };
  if (projects !== null && projects.length === 0) return { conversations: [], next: null };
  const where: string[] = [];
  const params: unknown[] = [];
  if (request.after !== undefined) {
    where.push('(s.last_at < ? OR (s.last_at = ? AND s.conversation < ?))');
    params.push(request.after.lastAt, request.after.lastAt, request.after.id);
  }
  if (request.agent !== undefined) {
    where.push('c.agent = ?');
    params.push(request.agent);
  }
  if (projects !== null) {
    where.push('c.project IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(projects));
  }
  if (request.since !== undefined) {
    where.push('s.last_at >= ?');
    params.push(request.since);
  }
  if (request.until !== undefined) {
    where.push('s.first_at < ?');
    params.push(request.until);
  }
  const sql = `${select(db)} ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY s.last_at DESC, s.conversation DESC LIMIT ?`;
  const rows = prepared(db, sql).all(...params, request.limit + 1) as Row[];
  const page = rows.slice(0, request.limit);
  const last = page.at(-1);
  return { conversations: page, next: rows.length > request.limit && last !== undefined ? cursorOf(last) : null };
}

const CHILDREN_MAX = 200;

/** A conversation's summary, its native parent and its native children (newest first, at most 200). */
export function conversationFamily(db: Db, id: string): ConversationFamily {
  if (!hasTable(db, 'conversations') || !hasTable(db, 'conversation_records')) return { parent: null, children: [], summary: null };
  const summary = (prepared(db, `${select(db)} WHERE s.conversation = ?`).get(id) as Row | undefined) ?? null;
  const info = prepared(db, 'SELECT id, agent, session, parent, project, job, kind FROM conversations WHERE id = ?');
  const own = info.get(id) as ConversationInfo | undefined;
  const parent = own?.parent == null ? null : ((info.get(own.parent) as ConversationInfo | undefined) ?? null);
  const children = prepared(db, `${select(db)} WHERE c.parent = ? ORDER BY s.last_at DESC, s.conversation DESC LIMIT ${CHILDREN_MAX}`).all(id) as Row[];
  return { parent, children, summary };
}
