// search_history on one read-only connection (history.db or a legacy
// bridge.db): parse the query, resolve the filters, gather candidates with
// the FTS5 engine (or the literal engine where FTS5 is missing or cannot
// express the query), rank, drop copies, hydrate the hits. The parts live in
// ./search/; this file only decides which engine answers.

import type { SearchHistoryOutput, SearchRequest } from '../../protocols/search.ts';
import type { Db } from './open.ts';
import { FTS_BUDGET, type FtsBudget, type Gathered, gatherFts, isFtsError, withSplitLines } from './search/fts.ts';
import { distinct, hydrate, keysOf } from './search/hits.ts';
import { type Layout, layoutOf } from './search/layout.ts';
import { gatherPlain } from './search/plain.ts';
import { type ParsedQuery, parseQuery } from './search/query.ts';
import { buildScope, type Scope } from './search/scope.ts';
import { collapse, snippetAround } from './search/snippet.ts';
import { prepared } from './statements.ts';
import { ROWID } from './search/rowid.ts';

export { parseQuery } from './search/query.ts';

export interface SearchOptions {
  /** Other forms of filters.project to match (its canonical path; see src/project/canonical.ts). */
  readonly projectPaths?: readonly string[];
  readonly fts?: Partial<FtsBudget>;
  readonly plainTimeMs?: number;
  /** Use the literal engine even where FTS5 could answer (tests, diagnostics). */
  readonly engine?: 'plain';
}

export type StoreSearchResult = Omit<SearchHistoryOutput, 'store'>;

export const PLAIN_TIME_MS = 300;

interface Plan {
  readonly layout: Layout;
  readonly parsed: ParsedQuery;
  readonly scope: Scope;
  readonly useFts: boolean;
}

function plan(db: Db, request: SearchRequest, options: SearchOptions): Plan {
  const layout = layoutOf(db);
  const parsed = parseQuery(request.query);
  const useFts = options.engine !== 'plain' && layout.fts && parsed.fts !== null;
  const scope = scopeFor(db, layout, request, options, useFts ? 'f.rowid' : 'd.rowid');
  return { layout, parsed, scope, useFts };
}

function scopeFor(db: Db, layout: Layout, request: SearchRequest, options: SearchOptions, doc: string): Scope {
  return buildScope(db, layout, request.filters, { doc, ...(options.projectPaths === undefined ? {} : { projectPaths: options.projectPaths }) });
}

function ftsSnippet(db: Db, parsed: ParsedQuery) {
  const statement = prepared(db, `SELECT snippet(history_fts, 0, '', '', '…', 40) FROM history_fts WHERE history_fts MATCH ? AND rowid = ${ROWID}`).pluck();
  return (rowid: number, body: () => string): string => {
    const text = statement.get(parsed.fts, rowid) as string | null | undefined;
    return snippetAround(text !== null && text !== undefined && collapse(text) !== '' ? text : body(), parsed.words);
  };
}

function notice(engine: 'fts5' | 'plain', gathered: Gathered): string | undefined {
  if (!gathered.truncated) return undefined;
  return engine === 'fts5'
    ? `more documents match than one search examines: the hits are the best-ranked among the newest ${gathered.passed} matching documents (after filters); add words or filters (project, agent, since) to narrow it`
    : `the literal search stopped at its time budget after ${gathered.examined} documents, newest first; add filters (project, agent, since) to narrow it`;
}

/**
 * Candidates can be copies of one hit (fragments of an oversized line,
 * broadcast copies), so a short page is asked again with room for more,
 * up to this many times, while unexamined matches remain.
 */
const WIDEN_ATTEMPTS = 2;

function result(engine: 'fts5' | 'plain', hits: StoreSearchResult['hits'], gathered: Gathered): StoreSearchResult {
  const text = notice(engine, gathered);
  return text === undefined ? { engine, hits, truncated: false } : { engine, hits, truncated: true, notice: text };
}

export function search(db: Db, request: SearchRequest, options: SearchOptions = {}): StoreSearchResult {
  const { layout, parsed, scope, useFts } = plan(db, request, options);
  if (useFts) {
    try {
      // Rank among the newest `enough` matches that pass the filters (without filters: at least the first window).
      for (let attempt = 0, scale = 1; ; attempt++, scale *= 4) {
        const enough = Math.max(FTS_BUDGET.enough, request.limit * 8) * scale;
        const keep = Math.max(FTS_BUDGET.keep, request.limit * 4) * scale;
        let gathered = gatherFts(db, layout, parsed.ftsPhrases, scope, { ...FTS_BUDGET, enough, minPassed: request.limit, keep, ...options.fts });
        let rowids = distinct(db, layout, gathered.candidates, request.limit);
        // Lines matching only across fragments rank last: needed only when the page is not full.
        if (rowids.length < request.limit && parsed.ftsPhrases.length > 1) {
          gathered = withSplitLines(db, layout, parsed.ftsPhrases, scope, gathered);
          rowids = distinct(db, layout, gathered.candidates, request.limit);
        }
        // Words of scripts without spaces are substrings FTS5 tokens cannot find: the literal engine may.
        if (gathered.candidates.length === 0 && parsed.spaceless) break;
        if (rowids.length < request.limit && gathered.passed > gathered.candidates.length && attempt < WIDEN_ATTEMPTS) continue;
        return result('fts5', hydrate(db, layout, rowids, ftsSnippet(db, parsed)), gathered);
      }
    } catch (error) {
      if (!isFtsError(error)) throw error;
    }
  }
  const plainScope = useFts ? scopeFor(db, layout, request, options, 'd.rowid') : scope;
  for (let attempt = 0, enough = request.limit * 4 + 16; ; attempt++, enough *= 4) {
    const gathered = gatherPlain(db, layout, parsed.needles, plainScope, { timeMs: options.plainTimeMs ?? PLAIN_TIME_MS, enough });
    const rowids = distinct(db, layout, gathered.candidates, request.limit);
    if (rowids.length < request.limit && !gathered.exhausted && !gathered.truncated && attempt < WIDEN_ATTEMPTS) continue;
    return result('plain', hydrate(db, layout, rowids, (_rowid, body) => snippetAround(body(), parsed.needles)), gathered);
  }
}

export interface MatchCount {
  readonly engine: 'fts5' | 'plain';
  /** Distinct hits (copies of one message or one captured line count once). */
  readonly count: number;
  /** Matching documents before dropping copies. */
  readonly documents: number;
}

/**
 * Every match of a query, counted without the work bounds of `search`
 * (benchmarks and tests compare it with planted counts; not for serving).
 */
export function countMatches(db: Db, request: SearchRequest, options: SearchOptions = {}): MatchCount {
  const { layout, parsed, scope, useFts } = plan(db, request, options);
  const unbounded: FtsBudget = {
    firstWindow: 1 << 16,
    maxWindow: 1 << 16,
    enough: Number.MAX_SAFE_INTEGER,
    timeMs: Number.POSITIVE_INFINITY,
    minPassed: 0,
    hardTimeMs: Number.POSITIVE_INFINITY,
    emptyTimeMs: Number.POSITIVE_INFINITY,
    maxMatches: Number.MAX_SAFE_INTEGER,
    keep: Number.MAX_SAFE_INTEGER,
    rankRestMax: 0,
  };
  const gathered = useFts
    ? withSplitLines(db, layout, parsed.ftsPhrases, scope, gatherFts(db, layout, parsed.ftsPhrases, scope, unbounded))
    : gatherPlain(db, layout, parsed.needles, scope, { timeMs: Number.POSITIVE_INFINITY, enough: Number.MAX_SAFE_INTEGER });
  const keys = keysOf(
    db,
    layout,
    gathered.candidates.map((c) => c.rowid),
  );
  return { engine: useFts ? 'fts5' : 'plain', count: new Set([...keys.values()].map((k) => k.key)).size, documents: gathered.candidates.length };
}
