// Filters → SQL conditions over `history_documents d` (and `r` refs).
//
// Conversation-level filters (project, session, job) are resolved first into
// the set of conversation rowids they cover, so the per-document check is a
// single lookup; legacy documents that belong to no conversation (bridge
// message, decision and run previews) match through their own columns and
// history_tags instead.
//   project  canonical project → known projects (exact, or longest prefix),
//            their conversations and memberships; `project` tags.
//   session  the session, its learned aliases (history_sessions) and their
//            conversations with native descendants; d.session, `session` tags.
//   job      conversations saved with the job, sessions bound to it
//            (conversation_bindings, history_sessions aliases), the bridge
//            job conversation, all with native descendants at any depth;
//            d.job, `job` tags. A handoff does not rename records, so the
//            saved job name keeps finding them.

import type { SearchFilters } from '../../../protocols/search.ts';
import { jobConversation } from '../../keys/bridge.ts';
import type { Db } from '../open.ts';
import type { Layout } from './layout.ts';
import { knownProjects, matchProjects } from './projects.ts';
import { prepared } from '../statements.ts';
import { ROWID } from './rowid.ts';

export interface Scope {
  /** Conditions to append to a WHERE clause (each starts with ' AND '). */
  readonly where: string;
  readonly params: unknown[];
  /** No document can pass (a filter named nothing the store knows). */
  readonly empty: boolean;
  /** The conditions read history_documents columns (`d` must be joined). */
  readonly usesDocument: boolean;
  /** The conditions read history_document_refs (`r` must be joined). */
  readonly usesRefs: boolean;
  /** The conditions read history_document_facets (`x` must be joined). */
  readonly usesFacets: boolean;
  /**
   * For conditions with an index ordered by rowid: SQL that takes the leap's
   * `params`, then a rowid, and returns the highest document at or below that
   * rowid the condition lets pass (NULL: none). A document passing every
   * condition lies at or below the least of them. Other conditions have none.
   */
  readonly leaps: readonly Leap[];
}

export interface Leap {
  readonly sql: string;
  readonly params: readonly unknown[];
}

export interface ScopeOptions {
  /** Extra forms of filters.project to match (its canonical path). */
  readonly projectPaths?: readonly string[];
  /** SQL for the document's rowid where the conditions are used (default `d.rowid`). */
  readonly doc?: string;
}

const IN_JSON = '(SELECT value FROM json_each(?))';

function tagTypeUsed(db: Db, layout: Layout, type: string): boolean {
  return layout.tags && prepared(db, 'SELECT 1 FROM history_tags WHERE type = ? LIMIT 1').get(type) !== undefined;
}

/** The conversations in `seeds` and their native descendants at any depth. */
function withDescendants(db: Db, seedSql: string, params: unknown[]): number[] {
  return prepared(
    db,
    `WITH RECURSIVE tree(id, rid) AS (SELECT id, rowid FROM conversations WHERE rowid IN (${seedSql})
         UNION SELECT c.id, c.rowid FROM conversations c JOIN tree t ON c.parent = t.id)
       SELECT rid FROM tree`,
  )
    .pluck()
    .all(...params) as number[];
}

/** A session id and every alias learned for it (peer ids, peer names). */
function sessionNames(db: Db, layout: Layout, session: string): string[] {
  const names = new Set([session]);
  if (layout.sessions) {
    const roots = prepared(db, 'SELECT session FROM history_sessions WHERE alias = ?').pluck().all(session) as string[];
    for (const root of [session, ...roots]) {
      names.add(root);
      for (const alias of prepared(db, 'SELECT alias FROM history_sessions WHERE session = ?').pluck().all(root) as string[]) names.add(alias);
    }
  }
  return [...names];
}

/** Ways a document can satisfy one conversation-level filter (any of them). */
interface Alternatives {
  readonly conversations: readonly number[];
  readonly columns: ReadonlyArray<{ readonly column: 'session' | 'job'; readonly values: readonly string[] }>;
  readonly tags: ReadonlyArray<{ readonly type: 'project' | 'session' | 'job'; readonly values: readonly string[] }>;
}

class Builder {
  readonly conditions: string[] = [];
  readonly params: unknown[] = [];
  empty = false;
  usesDocument = false;
  usesRefs = false;
  usesFacets = false;
  readonly leaps: Leap[] = [];

  constructor(
    private readonly db: Db,
    private readonly layout: Layout,
    private readonly doc: string,
  ) {}

  add(condition: string, ...params: unknown[]): void {
    this.conditions.push(condition);
    this.params.push(...params);
  }

  /**
   * A condition on a column history_document_facets mirrors: read there (`x`,
   * five times cheaper per FTS match than a history_documents row) unless
   * the document row is at hand anyway (the literal engine scans it).
   */
  addFacet(column: 'agent' | 'kind' | 'at', operator: string, value: unknown): void {
    if (this.layout.facets && this.doc !== 'd.rowid') {
      this.usesFacets = true;
      this.add(`x.${column} ${operator} ?`, value);
    } else this.addDocument(`d.${column} ${operator} ?`, value);
    if (column === 'agent' && operator === '=' && this.layout.agentIndex) {
      this.leaps.push({ sql: `SELECT max(doc) FROM history_document_facets WHERE agent = ? AND doc <= ${ROWID}`, params: [value] });
    }
  }

  /** A condition on a history_documents column. */
  addDocument(condition: string, ...params: unknown[]): void {
    this.usesDocument = true;
    this.add(condition, ...params);
  }

  addAny(alternatives: Alternatives): void {
    const sql: string[] = [];
    const params: unknown[] = [];
    if (alternatives.conversations.length > 0) {
      sql.push(`${this.layout.conversationRowid(this.doc)} IN ${IN_JSON}`);
      params.push(JSON.stringify(alternatives.conversations));
      this.usesRefs ||= this.layout.refs;
    }
    for (const { column, values } of alternatives.columns) {
      if (values.length === 0) continue;
      sql.push(`d.${column} IN ${IN_JSON}`);
      params.push(JSON.stringify(values));
      this.usesDocument = true;
    }
    for (const { type, values } of alternatives.tags) {
      if (values.length === 0 || !tagTypeUsed(this.db, this.layout, type)) continue;
      sql.push(`EXISTS (SELECT 1 FROM history_tags t WHERE t.id = d.id AND t.type = '${type}' AND t.value IN ${IN_JSON})`);
      params.push(JSON.stringify(values));
      this.usesDocument = true;
    }
    if (sql.length === 0) {
      this.empty = true;
      this.add('0');
      return;
    }
    this.add(`(${sql.join(' OR ')})`, ...params);
  }

  project(path: string, extra: readonly string[]): void {
    const projects = matchProjects(knownProjects(this.db, this.layout), [...extra, path]);
    let conversations: number[] = [];
    if (this.layout.conversations && projects.length > 0) {
      const json = JSON.stringify(projects);
      const members = this.layout.memberships
        ? ` UNION SELECT c.rowid FROM conversation_memberships m JOIN conversations c ON c.id = m.conversation WHERE m.project IN ${IN_JSON}`
        : '';
      const params = this.layout.memberships ? [json, json] : [json];
      conversations = prepared(this.db, `SELECT rowid FROM conversations WHERE project IN ${IN_JSON}${members}`).pluck().all(...params) as number[];
    }
    this.addAny({ conversations, columns: [], tags: [{ type: 'project', values: projects }] });
  }

  session(session: string): void {
    const names = sessionNames(this.db, this.layout, session);
    const ids = names.flatMap((n) => ['claude', 'codex', 'opencode'].map((agent) => `${agent}:${n}`));
    const conversations = this.layout.conversations
      ? withDescendants(this.db, `SELECT rowid FROM conversations WHERE session IN ${IN_JSON} OR id IN ${IN_JSON}`, [JSON.stringify(names), JSON.stringify(ids)])
      : [];
    this.addAny({ conversations, columns: [{ column: 'session', values: names }], tags: [{ type: 'session', values: names }] });
  }

  job(job: string): void {
    // Sessions learned for the job: its peers' aliases and the CLI sessions they resolve to.
    const sessions = new Set<string>();
    if (this.layout.sessions) {
      for (const row of prepared(this.db, 'SELECT alias, session FROM history_sessions WHERE job = ?').all(job) as { alias: string; session: string }[]) {
        sessions.add(row.alias);
        sessions.add(row.session);
      }
    }
    const seeds: string[] = [];
    const params: unknown[] = [];
    if (this.layout.conversations) {
      seeds.push('SELECT rowid FROM conversations WHERE job = ? OR id = ?');
      params.push(job, jobConversation(job));
      if (this.layout.bindings) {
        seeds.push('SELECT c.rowid FROM conversation_bindings b JOIN conversations c ON c.session = b.session AND c.agent = b.agent WHERE b.job = ?');
        params.push(job);
      }
      if (sessions.size > 0) {
        seeds.push(`SELECT rowid FROM conversations WHERE session IN ${IN_JSON}`);
        params.push(JSON.stringify([...sessions]));
      }
    }
    const conversations = seeds.length > 0 ? withDescendants(this.db, seeds.join(' UNION '), params) : [];
    const aliases = [...sessions];
    this.addAny({
      conversations,
      columns: [
        { column: 'job', values: [job] },
        { column: 'session', values: aliases },
      ],
      tags: [
        { type: 'job', values: [job] },
        { type: 'session', values: aliases },
      ],
    });
  }
}

export function buildScope(db: Db, layout: Layout, filters: SearchFilters, options: ScopeOptions = {}): Scope {
  const b = new Builder(db, layout, options.doc ?? 'd.rowid');
  if (filters.agent !== undefined) b.addFacet('agent', '=', filters.agent);
  if (filters.kind !== undefined) b.addFacet('kind', '=', filters.kind);
  if (filters.since !== undefined) b.addFacet('at', '>=', filters.since);
  if (filters.until !== undefined) b.addFacet('at', '<', filters.until);
  if (filters.project !== undefined) b.project(filters.project, options.projectPaths ?? []);
  if (filters.session !== undefined) b.session(filters.session);
  if (filters.job !== undefined) b.job(filters.job);
  return {
    where: b.conditions.map((c) => ` AND ${c}`).join(''),
    params: b.params,
    empty: b.empty,
    usesDocument: b.usesDocument,
    usesRefs: b.usesRefs,
    usesFacets: b.usesFacets,
    leaps: b.leaps,
  };
}

/** The joins a scope's conditions need, for the document whose rowid is `doc` (FTS5 `f` the outer loop). */
export function scopeJoins(layout: Layout, scope: Scope, doc: string): string {
  return [
    scope.usesFacets ? `CROSS JOIN history_document_facets x ON x.doc = ${doc}` : '',
    scope.usesRefs ? layout.refJoin(doc) : '',
    scope.usesDocument ? `CROSS JOIN history_documents d ON d.rowid = ${doc}` : '',
  ].join(' ');
}
