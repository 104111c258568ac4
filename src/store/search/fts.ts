// The FTS5 engine: every phrase of the query must match (AND), ranked by
// bm25, then newest.
//
// Bounded work. Ranking every match of a very common word costs time in
// proportion to the corpus, so matches are examined newest first (by rowid,
// which FTS5 iterates natively) in windows: a rowid-only pass (cheap, in C)
// finds where a window of N matches ends, then one statement applies the
// filters to the matches inside it, ranks them by bm25 in SQLite and returns
// only the best few with the number that passed. The first window holds
// `firstWindow` matches; later ones are sized from the pass rate seen so far
// to reach `enough` in one more step (at least doubling, at most
// `maxWindow`), because every statement pays bm25's fixed cost of counting
// each phrase's documents. The walk stops once `enough` matches passed the
// filters, the matches are exhausted, or the time budget is spent. When
// it stops before the oldest match the result says so (truncated): the hits
// are then the best-ranked among the newest matches.

import type { Db } from '../open.ts';
import type { Layout } from './layout.ts';
import { splitLines } from './fragments.ts';
import type { Scope } from './scope.ts';
import { prepared } from './statements.ts';

export interface Candidate {
  readonly rowid: number;
  /** bm25 (lower is better); 0 for the literal engine. */
  readonly score: number;
}

export interface Gathered {
  /** Every match at or above this rowid was examined (0: all of them). */
  readonly floor?: number;
  /** The best candidates (at most `keep`), in no particular order. */
  readonly candidates: Candidate[];
  /** The walk stopped before examining every match because of its work bound (ranking saw only the newest). */
  readonly truncated: boolean;
  /** Every match was examined. */
  readonly exhausted: boolean;
  /** Matches examined (before filters). */
  readonly examined: number;
  /** Matches that passed the filters. */
  readonly passed: number;
}

export interface FtsBudget {
  /** Matches in the first window (windows double up to maxWindow). */
  readonly firstWindow: number;
  readonly maxWindow: number;
  /** Stop once this many matches passed the filters. */
  readonly enough: number;
  /** Start no new window after this many milliseconds. */
  readonly timeMs: number;
  /** Never examine more than this many matches in one query. */
  readonly maxMatches: number;
  /** Best candidates kept (enough for `limit` hits after dropping copies). */
  readonly keep: number;
}

export const FTS_BUDGET: FtsBudget = { firstWindow: 1024, maxWindow: 16_384, enough: 256, timeMs: 20, maxMatches: 65_536, keep: 64 };

const TOP = Number.MAX_SAFE_INTEGER;

interface WindowRow {
  readonly rowid: number;
  readonly score: number;
  readonly passed: number;
}

function windowSql(layout: Layout, scope: Scope): string {
  const joins = [scope.usesRefs ? layout.refJoin('f.rowid') : '', scope.usesDocument ? 'JOIN history_documents d ON d.rowid = f.rowid' : ''].join(' ');
  return `SELECT f.rowid AS rowid, f.rank AS score, count(*) OVER () AS passed
    FROM (SELECT rowid, rank FROM history_fts WHERE history_fts MATCH ? AND rowid BETWEEN ? AND ?) f ${joins}
    WHERE 1 = 1${scope.where} ORDER BY f.rank, f.rowid DESC LIMIT ?`;
}

/** Where a window of N matches at or below `hi` ends (and how many it holds). */
const BOUNDARY =
  'SELECT count(*) AS n, min(rowid) AS lo FROM (SELECT rowid FROM history_fts WHERE history_fts MATCH ? AND rowid <= ? ORDER BY rowid DESC LIMIT ?)';

/**
 * Candidates for the phrases (all must match) within `scope`, newest
 * matches first, bounded by `budget`; with several phrases, also the lines
 * that match only across their fragments in the examined range.
 */
export function gatherFts(db: Db, layout: Layout, phrases: readonly string[], scope: Scope, budget: FtsBudget = FTS_BUDGET): Gathered {
  const gathered = walk(db, layout, phrases.join(' AND '), scope, budget);
  if (phrases.length < 2) return gathered;
  const split = splitLines(db, layout, phrases, scope, gathered.floor ?? 0, TOP);
  if (split.length === 0) return gathered;
  return { ...gathered, candidates: best([...gathered.candidates, ...split], budget.keep), passed: gathered.passed + split.length };
}

function walk(db: Db, layout: Layout, expression: string, scope: Scope, budget: FtsBudget): Gathered {
  let candidates: Candidate[] = [];
  if (scope.empty) return { candidates, truncated: false, exhausted: true, examined: 0, passed: 0, floor: 0 };
  const boundary = prepared(db, BOUNDARY);
  const window = prepared(db, windowSql(layout, scope));
  const started = performance.now();
  let hi = TOP;
  let size = budget.firstWindow;
  let examined = 0;
  let passed = 0;
  for (;;) {
    const want = Math.min(size, budget.maxMatches - examined);
    const edge = boundary.get(expression, hi, want) as { n: number; lo: number | null };
    if (edge.n === 0) return { candidates, truncated: false, exhausted: true, examined, passed, floor: 0 };
    const lo = edge.lo as number;
    const rows = window.all(expression, lo, hi, ...scope.params, budget.keep) as WindowRow[];
    passed += rows[0]?.passed ?? 0;
    examined += edge.n;
    candidates = best([...candidates, ...rows], budget.keep);
    if (edge.n < want) return { candidates, truncated: false, exhausted: true, examined, passed, floor: 0 };
    hi = lo - 1;
    const rate = Math.max(passed / examined, 1 / budget.maxWindow);
    size = Math.min(budget.maxWindow, Math.max(size * 2, Math.ceil(((budget.enough - passed) / rate) * 1.25)));
    if (passed >= budget.enough || examined >= budget.maxMatches || performance.now() - started > budget.timeMs) {
      const more = boundary.get(expression, hi, 1) as { n: number };
      return { candidates, truncated: more.n > 0, exhausted: more.n === 0, examined, passed, floor: more.n > 0 ? lo : 0 };
    }
  }
}

/** The `keep` best candidates by bm25, the most recently captured first among equals. */
function best(rows: readonly Candidate[], keep: number): Candidate[] {
  return rows
    .map((r) => ({ rowid: r.rowid, score: r.score }))
    .sort((a, b) => a.score - b.score || b.rowid - a.rowid)
    .slice(0, keep);
}

/** FTS5 query errors (a quoting bug, an FTS build without a feature): the caller falls back to the literal engine. */
export function isFtsError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e !== null && typeof e === 'object' && e.code === 'SQLITE_ERROR' && typeof e.message === 'string' && /fts5|MATCH|syntax/i.test(e.message);
}
