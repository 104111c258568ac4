// From ranked candidates to hits: one hit per message (broadcast copies share
// a message id) and per captured line (the fragments of an oversized line
// share it), then the columns and a snippet for the few hits returned.

import type { SearchHit } from '../../../protocols/search.ts';
import { messageOfSource } from '../../keys/bridge.ts';
import type { Db } from '../open.ts';
import type { Candidate } from './fts.ts';
import type { Layout } from './layout.ts';
import { prepared } from '../statements.ts';

const KEY_BATCH = 256;

interface KeyRow {
  readonly rowid: number;
  readonly at: number;
  readonly message: string | null;
  readonly line: string | null;
  readonly source: string | null;
}


function keysSql(layout: Layout): string {
  return `SELECT d.rowid AS rowid, d.at AS at, d.message AS message, ${layout.lineKey} AS line, ${layout.recordSource} AS source
    FROM history_documents d ${layout.refJoin('d.rowid')} WHERE d.rowid IN (SELECT value FROM json_each(?))`;
}

/** What makes two documents the same hit. */
export function dedupeKey(row: KeyRow): string {
  const message = row.message ?? messageOfSource(row.source);
  if (message !== null) return `m\0${message}`;
  if (row.line !== null) return `l\0${row.line}`;
  return `d\0${row.rowid}`;
}

export interface DocumentKey {
  readonly key: string;
  readonly at: number;
}

/** Dedupe keys and times of `rowids` (any order). */
export function keysOf(db: Db, layout: Layout, rowids: readonly number[]): Map<number, DocumentKey> {
  const keys = new Map<number, DocumentKey>();
  const statement = prepared(db, keysSql(layout));
  for (let i = 0; i < rowids.length; i += KEY_BATCH) {
    const batch = rowids.slice(i, i + KEY_BATCH);
    for (const row of statement.all(JSON.stringify(batch)) as KeyRow[]) keys.set(row.rowid, { key: dedupeKey(row), at: row.at });
  }
  return keys;
}

/**
 * The first `limit` candidates in ranking order (bm25, then newest, then the
 * most recently captured) that are not copies of a better-ranked one. Keys
 * and times are read a batch at a time in score order; a batch always
 * extends over every candidate with its last score, so ties are ordered by
 * time exactly.
 */
export function distinct(db: Db, layout: Layout, candidates: readonly Candidate[], limit: number): number[] {
  const byScore = [...candidates].sort((a, b) => a.score - b.score || b.rowid - a.rowid);
  const seen = new Set<string>();
  const out: number[] = [];
  let start = 0;
  let size = limit * 2 + 8;
  while (start < byScore.length && out.length < limit) {
    let end = Math.min(byScore.length, start + size);
    while (end < byScore.length && (byScore[end] as Candidate).score === (byScore[end - 1] as Candidate).score) end++;
    const batch = byScore.slice(start, end);
    const keys = keysOf(
      db,
      layout,
      batch.map((c) => c.rowid),
    );
    batch.sort((a, b) => a.score - b.score || (keys.get(b.rowid)?.at ?? 0) - (keys.get(a.rowid)?.at ?? 0) || b.rowid - a.rowid);
    for (const { rowid } of batch) {
      const key = keys.get(rowid)?.key ?? `d\0${rowid}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(rowid);
      if (out.length >= limit) break;
    }
    start = end;
    size *= 2;
  }
  return out;
}

/** A hit's columns as the store holds them (snippet and sourceLink are made later). */
interface HitRow extends Omit<SearchHit, 'snippet' | 'sourceLink'> {
  readonly rowid: number;
  readonly conversationJob: string | null;
  readonly tagProject: string | null;
  readonly source: string | null;
}

function hitSql(layout: Layout): string {
  const conversation = layout.conversations
    ? `c.id AS conversation, nullif(c.project, '') AS project, c.job AS conversationJob`
    : 'NULL AS conversation, NULL AS project, NULL AS conversationJob';
  const join = layout.conversations ? `LEFT JOIN conversations c ON c.rowid = ${layout.conversationRowid('d.rowid')}` : '';
  const tagProject = layout.tags ? "(SELECT t.value FROM history_tags t WHERE t.id = d.id AND t.type = 'project' LIMIT 1)" : 'NULL';
  return `SELECT d.rowid AS rowid, d.id AS id, d.kind AS kind, d.agent AS agent, d.at AS at, d.link AS link, d.message AS message,
      d.job AS job, d.run AS run, d.session AS session, d.cursor AS cursor, ${conversation},
      ${tagProject} AS tagProject, ${layout.recordSource} AS source
    FROM history_documents d ${layout.refJoin('d.rowid')} ${join} WHERE d.rowid = ?`;
}

/** A hit's snippet; `text` reads the document's text (derived again for a span document), only when needed. */
export type Snippet = (rowid: number, text: () => string) => string;

/** Full hits for `rowids`, in that order. */
export function hydrate(db: Db, layout: Layout, rowids: readonly number[], snippet: Snippet): SearchHit[] {
  const statement = prepared(db, hitSql(layout));
  const text = prepared(db, `SELECT ${layout.text} FROM history_documents d WHERE d.rowid = ?`).pluck();
  const hits: SearchHit[] = [];
  for (const rowid of rowids) {
    const row = statement.get(rowid) as HitRow | undefined;
    if (row === undefined) continue;
    const conversation = row.conversation;
    hits.push({
      id: row.id,
      kind: row.kind,
      agent: row.agent,
      // Legacy file records can hold a fractional mtime in this INTEGER column.
      at: Math.trunc(row.at),
      snippet: snippet(rowid, () => (text.get(rowid) as string | null) ?? ''),
      link: row.link !== '' ? row.link : conversation !== null ? `/api/conversations/${encodeURIComponent(conversation)}` : '',
      sourceLink: `/api/history/${encodeURIComponent(row.id)}`,
      message: row.message ?? messageOfSource(row.source),
      job: row.job ?? row.conversationJob,
      run: row.run,
      session: row.session,
      cursor: row.cursor,
      conversation,
      project: row.project ?? row.tagProject,
    });
  }
  return hits;
}
