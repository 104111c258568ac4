// The FTS5 engine: every phrase of the query must match (AND), ranked by
// bm25, then newest.
//
// Bounded work. Ranking every match of a very common word would cost time
// proportional to the corpus, so matches are examined newest first (FTS5
// iterates rowids in descending order natively) in windows of at most
// WINDOW_MATCHES matches: a cheap rowid-only pass finds where the window
// ends, then one statement applies the filters and computes bm25 for the
// matches inside it. Windows continue until enough candidates passed the
// filters, the matches are exhausted, or the time budget is spent. When the
// walk stops before the oldest match, the result says so (truncated): the
// hits are then the best-ranked among the newest matches.

import type { Db } from '../open.ts';
import type { Layout } from './layout.ts';
import type { Scope } from './scope.ts';
import { prepared } from './statements.ts';

export interface Candidate {
  readonly rowid: number;
  /** bm25 (lower is better); 0 for the literal engine. */
  readonly score: number;
  readonly at: number;
}

export interface Gathered {
  readonly candidates: Candidate[];
  /** The walk stopped before examining every match. */
  readonly truncated: boolean;
  /** Matches examined (before filters). */
  readonly examined: number;
}

export interface FtsBudget {
  /** Matches per window. */
  readonly windowMatches: number;
  /** Stop once this many candidates passed the filters. */
  readonly enough: number;
  /** Stop starting new windows after this many milliseconds. */
  readonly timeMs: number;
  /** Never examine more than this many matches in one query. */
  readonly maxMatches: number;
}

export const FTS_BUDGET: FtsBudget = { windowMatches: 2048, enough: 200, timeMs: 25, maxMatches: 65_536 };

const TOP = Number.MAX_SAFE_INTEGER;

function statements(db: Db, layout: Layout, scope: Scope) {
  return {
    // Where a window of N matches at or below `hi` ends, and whether it reached the oldest match.
    boundary: prepared(
      db,
      'SELECT count(*) AS n, min(rowid) AS lo FROM (SELECT rowid FROM history_fts WHERE history_fts MATCH ? AND rowid <= ? ORDER BY rowid DESC LIMIT ?)',
    ),
    window: prepared(
      db,
      `SELECT f.rowid AS rowid, bm25(history_fts) AS score, d.at AS at
       FROM history_fts f JOIN history_documents d ON d.rowid = f.rowid ${layout.refJoin}
       WHERE history_fts MATCH ? AND f.rowid BETWEEN ? AND ?${scope.where}`,
    ),
  };
}

/** Candidates for `expression` within `scope`, newest matches first, bounded by `budget`. */
export function gatherFts(db: Db, layout: Layout, expression: string, scope: Scope, budget: FtsBudget = FTS_BUDGET): Gathered {
  const candidates: Candidate[] = [];
  if (scope.empty) return { candidates, truncated: false, examined: 0 };
  const { boundary, window } = statements(db, layout, scope);
  const started = performance.now();
  let hi = TOP;
  let examined = 0;
  for (;;) {
    const size = Math.min(budget.windowMatches, budget.maxMatches - examined);
    const edge = boundary.get(expression, hi, size) as { n: number; lo: number | null };
    if (edge.n === 0) return { candidates, truncated: false, examined };
    const lo = edge.lo as number;
    for (const row of window.all(expression, lo, hi, ...scope.params) as Candidate[]) candidates.push(row);
    examined += edge.n;
    if (edge.n < size) return { candidates, truncated: false, examined };
    hi = lo - 1;
    if (candidates.length >= budget.enough || examined >= budget.maxMatches || performance.now() - started > budget.timeMs) {
      // Stopped early: is anything left below?
      const more = boundary.get(expression, hi, 1) as { n: number };
      return { candidates, truncated: more.n > 0, examined };
    }
  }
}

/** bm25 (better first), then newest, then the most recently captured. */
export function rank(candidates: Candidate[]): Candidate[] {
  return candidates.sort((a, b) => a.score - b.score || b.at - a.at || b.rowid - a.rowid);
}

/** FTS5 query errors (a bug in quoting, an FTS build without a feature): the caller falls back to the literal engine. */
export function isFtsError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e !== null && typeof e === 'object' && e.code === 'SQLITE_ERROR' && typeof e.message === 'string' && /fts5|MATCH|syntax/i.test(e.message);
}
