// Searching history documents on a read-only connection.
//
// Engine "fts5": every word of the query must match (AND); each word is a
// quoted FTS5 string, so no query text is ever FTS syntax; ordered by bm25,
// then newest. Engine "plain": the literal fallback where FTS5 is missing or
// the query has no word FTS5 can index: case- and diacritic-folded
// substrings, newest first, scanned within a time budget.

import type { Agent, Kind } from '../../protocols/records.ts';
import { fold } from '../text/fold.ts';
import type { Db } from './open.ts';
import { hasTable } from './open.ts';

export interface SearchFilters {
  readonly agent?: Agent;
  readonly kind?: Kind;
  /** Canonical project path. */
  readonly project?: string;
  readonly session?: string;
  readonly since?: number;
  readonly until?: number;
}

export interface SearchQuery {
  readonly query: string;
  readonly filters: SearchFilters;
  readonly limit: number;
}

export interface SearchHit {
  readonly id: string;
  readonly kind: string;
  readonly agent: string;
  readonly at: number;
  readonly snippet: string;
  readonly link: string;
  readonly sourceLink: string;
  readonly message: string | null;
  readonly job: string | null;
  readonly run: string | null;
  readonly session: string | null;
  readonly cursor: string | null;
  readonly conversation: string | null;
  readonly project: string | null;
}

export interface SearchResult {
  readonly engine: 'fts5' | 'plain';
  readonly hits: SearchHit[];
  /** The scan stopped at its budget: more matches may exist. */
  readonly truncated: boolean;
}

const MAX_TERMS = 32;
const SNIPPET_MAX = 320;
const PLAIN_BUDGET_MS = 1500;
const WORD = /[\p{L}\p{N}]+/gu;

export function queryTerms(query: string): string[] {
  return [...new Set(fold(query).match(WORD) ?? [])].slice(0, MAX_TERMS);
}

/** An FTS5 MATCH expression: each term a quoted string, implicitly ANDed. */
export function ftsExpression(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' ');
}

export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function clip(text: string, max = SNIPPET_MAX): string {
  const flat = collapse(text);
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A window of `body` around the first folded occurrence of any term. */
export function snippetAround(body: string, terms: readonly string[]): string {
  const folded = fold(body);
  let at = -1;
  for (const term of terms) {
    const i = folded.indexOf(term);
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  // Folding can change lengths (NFKD); scale the position back to the body.
  const position = at <= 0 ? 0 : Math.floor((at * body.length) / Math.max(1, folded.length));
  const start = Math.max(0, position - SNIPPET_MAX / 3);
  const prefix = start > 0 ? '…' : '';
  return clip(prefix + body.slice(start, start + SNIPPET_MAX * 2));
}

interface Row {
  rowid: number;
  id: string;
  kind: string;
  agent: string;
  at: number;
  body?: string;
  snip?: string;
  link: string;
  message: string | null;
  job: string | null;
  run: string | null;
  session: string | null;
  cursor: string | null;
  conversation: string | null;
  project: string | null;
}

const COLUMNS = `d.rowid, d.id, d.kind, d.agent, d.at, d.link, d.message, d.job, d.run, d.session, d.cursor,
  c.id AS conversation, c.project AS project`;
const JOINS = `LEFT JOIN history_document_refs r ON r.doc = d.rowid LEFT JOIN conversations c ON c.rowid = r.conversation`;
/**
 * Legacy bridge.db (read until the migration is verified) has no
 * history_document_refs, and a 0.29.10 one no conversations: the same
 * columns, always NULL, so hits and filters mean the same on both stores.
 */
const NO_REFS = `LEFT JOIN (SELECT NULL AS id, NULL AS session, NULL AS project) c ON 0`;

function joinsFor(db: Db): string {
  return hasTable(db, 'history_document_refs') && hasTable(db, 'conversations') ? JOINS : NO_REFS;
}

function filterSql(filters: SearchFilters, params: unknown[]): string {
  const where: string[] = [];
  if (filters.agent !== undefined) {
    where.push('d.agent = ?');
    params.push(filters.agent);
  }
  if (filters.kind !== undefined) {
    where.push('d.kind = ?');
    params.push(filters.kind);
  }
  if (filters.since !== undefined) {
    where.push('d.at >= ?');
    params.push(filters.since);
  }
  if (filters.until !== undefined) {
    where.push('d.at < ?');
    params.push(filters.until);
  }
  if (filters.session !== undefined) {
    where.push('(d.session = ? OR c.session = ?)');
    params.push(filters.session, filters.session);
  }
  if (filters.project !== undefined) {
    where.push(`(c.project = ? OR d.id IN (SELECT id FROM history_tags WHERE type = 'project' AND value = ?))`);
    params.push(filters.project, filters.project);
  }
  return where.map((w) => ` AND ${w}`).join('');
}

function toHit(row: Row, snippet: string): SearchHit {
  const conversation = row.conversation;
  return {
    id: row.id,
    kind: row.kind,
    agent: row.agent,
    at: row.at,
    snippet,
    link: row.link !== '' ? row.link : conversation !== null ? `/api/conversations/${encodeURIComponent(conversation)}` : '',
    sourceLink: `/api/history/${encodeURIComponent(row.id)}`,
    message: row.message,
    job: row.job,
    run: row.run,
    session: row.session,
    cursor: row.cursor,
    conversation,
    project: row.project,
  };
}

function searchFts(db: Db, terms: readonly string[], q: SearchQuery): SearchHit[] {
  const params: unknown[] = [ftsExpression(terms)];
  const sql = `SELECT ${COLUMNS}, snippet(history_fts, 0, '', '', '…', 40) AS snip
    FROM history_fts f JOIN history_documents d ON d.rowid = f.rowid ${joinsFor(db)}
    WHERE history_fts MATCH ?${filterSql(q.filters, params)}
    ORDER BY f.rank, d.at DESC LIMIT ?`;
  params.push(q.limit);
  return (db.prepare(sql).all(...params) as Row[]).map((row) => toHit(row, clip(row.snip ?? '')));
}

function searchPlain(db: Db, query: string, q: SearchQuery): { hits: SearchHit[]; truncated: boolean } {
  const needles = fold(query).split(/\s+/).filter((s) => s !== '');
  const params: unknown[] = [];
  const sql = `SELECT ${COLUMNS}, d.body, d.folded FROM history_documents d ${joinsFor(db)}
    WHERE 1 = 1${filterSql(q.filters, params)} ORDER BY d.at DESC, d.rowid DESC`;
  const hits: SearchHit[] = [];
  const deadline = Date.now() + PLAIN_BUDGET_MS;
  let scanned = 0;
  for (const row of db.prepare(sql).iterate(...params) as Iterable<Row & { folded: string }>) {
    const haystack = row.folded !== '' ? row.folded : fold(row.body ?? '');
    if (needles.every((n) => haystack.includes(n))) {
      hits.push(toHit(row, snippetAround(row.body ?? '', needles)));
      if (hits.length >= q.limit) return { hits, truncated: false };
    }
    if (++scanned % 256 === 0 && Date.now() > deadline) return { hits, truncated: true };
  }
  return { hits, truncated: false };
}

export function search(db: Db, q: SearchQuery): SearchResult {
  const terms = queryTerms(q.query);
  const fts = hasTable(db, 'history_fts');
  if (fts && terms.length > 0) {
    const hits = searchFts(db, terms, q);
    if (hits.length > 0 || !/[^\p{L}\p{N}\s]|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u.test(q.query)) {
      return { engine: 'fts5', hits, truncated: false };
    }
  }
  const plain = searchPlain(db, q.query.trim(), q);
  return { engine: 'plain', hits: plain.hits, truncated: plain.truncated };
}
