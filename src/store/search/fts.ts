// The FTS5 engine: every phrase of the query must match (AND), ranked by
// bm25, then newest.
//
// Bounded work. Ranking every match of a very common word costs time in
// proportion to the corpus, so matches are examined newest first (by rowid,
// which FTS5 iterates natively) in windows: the newest N matches below the
// previous window are filtered and ranked by bm25 in SQLite, which returns
// only the best few, with how many were examined and how many passed. The first window holds
// `firstWindow` matches; later ones are sized from the pass rate seen so far
// to reach `enough` in one more step (between `firstWindow` and
// `maxWindow`), because every statement pays bm25's fixed cost of counting
// each phrase's documents. The walk stops once `enough` matches passed the
// filters, the matches are exhausted, or the time budget is spent (a longer
// one while fewer than a page of matches passed, so that selective filters
// still find what exists; and if the page is still short and few enough
// matches remain, those are ranked in one statement, exactly). When
// it stops before the oldest match the result says so (truncated): the hits
// are then the best-ranked among the newest matches.

import type { Db } from '../open.ts';
import type { Layout } from './layout.ts';
import { splitLines } from './fragments.ts';
import type { Scope } from './scope.ts';
import { prepared } from '../statements.ts';

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
  /** Start no window that would end after this many milliseconds, once `minPassed` matches passed the filters... */
  readonly timeMs: number;
  readonly minPassed: number;
  /** ...or, while fewer passed, after this many... */
  readonly hardTimeMs: number;
  /** ...or, while none passed, after this many (then the rest may be ranked at once, see rankRestMax). */
  readonly emptyTimeMs: number;
  /** Never examine more than this many matches in one query. */
  readonly maxMatches: number;
  /** Best candidates kept (enough for `limit` hits after dropping copies). */
  readonly keep: number;
  /**
   * When a filtered walk reaches its work bound with less than a page passed
   * and at most this many matches remain, those are ranked in one statement:
   * the page is exact instead of short.
   */
  readonly rankRestMax: number;
}

export const FTS_BUDGET: FtsBudget = {
  firstWindow: 1024,
  maxWindow: 4096,
  enough: 64,
  timeMs: 15,
  minPassed: 10,
  hardTimeMs: 40,
  emptyTimeMs: 15,
  maxMatches: 131_072,
  keep: 64,
  rankRestMax: 32_768,
};

const TOP = Number.MAX_SAFE_INTEGER;

/** An unfiltered window's row: a candidate with how many passed (all); the first row instead describes the window (n matches, lowest rowid lo). */
interface WindowRow {
  readonly rowid: number;
  readonly score: number;
  readonly n?: number | null;
  readonly lo?: number | null;
  readonly passed: number;
}

/**
 * Without filters, one pass per window: the newest `size` matches at or
 * below `hi` (with bm25) are materialised once; the first row counts them,
 * the rest are the best `keep`, each carrying how many passed (all).
 */
function unfilteredSql(): string {
  return `WITH w AS MATERIALIZED (SELECT rowid, rank FROM history_fts WHERE history_fts MATCH ? AND rowid <= ? ORDER BY rowid DESC LIMIT ?)
    SELECT NULL AS rowid, NULL AS score, count(*) AS n, min(rowid) AS lo, NULL AS passed FROM w
    UNION ALL
    SELECT * FROM (SELECT rowid, rank AS score, NULL AS n, NULL AS lo, count(*) OVER () AS passed FROM w ORDER BY rank, rowid DESC LIMIT ?)`;
}

/**
 * With filters, two passes per window, so that bm25 is computed only for the
 * matches that pass: where the window ends (rowids only, in C), then the
 * filtered, ranked matches inside it. CROSS JOIN keeps the FTS5 table the
 * outer loop (otherwise the planner may scan history_documents).
 *
 * `sorted`: 'fts5' is ORDER BY f.rank alone, which FTS5 answers by ranking
 * every match of the expression itself, whatever the rowid range: half the
 * time of SQLite's sort when (nearly) all matches are ranked anyway, far more
 * for a narrow window. Ties are ordered newest first by `best` either way.
 */
const BOUNDARY =
  'SELECT count(*) AS n, min(rowid) AS lo FROM (SELECT rowid FROM history_fts WHERE history_fts MATCH ? AND rowid <= ? ORDER BY rowid DESC LIMIT ?)';

function filteredSql(layout: Layout, scope: Scope, sorted: 'sqlite' | 'fts5'): string {
  const joins = [scope.usesRefs ? layout.refJoin('f.rowid') : '', scope.usesDocument ? 'CROSS JOIN history_documents d ON d.rowid = f.rowid' : ''].join(' ');
  return `SELECT f.rowid AS rowid, f.rank AS score FROM history_fts f ${joins}
    WHERE history_fts MATCH ? AND f.rowid BETWEEN ? AND ?${scope.where} ORDER BY ${sorted === 'fts5' ? 'f.rank' : 'f.rank, f.rowid DESC'} LIMIT ?`;
}

/** The best `keep` filtered matches in [lo, hi], and how many passed: exact below `keep`, else `keep` + 1 (at least that many). */
function rankFiltered(db: Db, layout: Layout, expression: string, scope: Scope, lo: number, hi: number, keep: number): { rows: Candidate[]; passed: number } {
  const rows = prepared(db, filteredSql(layout, scope, lo === 0 ? 'fts5' : 'sqlite')).all(expression, lo, hi, ...scope.params, keep) as Candidate[];
  return { rows, passed: rows.length < keep ? rows.length : keep + 1 };
}

/** One window: how many matches it held, where it ends, its best candidates and how many passed. */
function runWindow(db: Db, layout: Layout, expression: string, scope: Scope, hi: number, size: number, keep: number): { n: number; lo: number; rows: Candidate[]; passed: number } {
  if (scope.where === '') {
    const [edge, ...rows] = prepared(db, unfilteredSql()).all(expression, hi, size, keep) as WindowRow[];
    return { n: edge?.n ?? 0, lo: edge?.lo ?? 0, rows, passed: rows[0]?.passed ?? 0 };
  }
  const edge = prepared(db, BOUNDARY).get(expression, hi, size) as { n: number; lo: number | null };
  if (edge.n === 0) return { n: 0, lo: 0, rows: [], passed: 0 };
  return { n: edge.n, lo: edge.lo as number, ...rankFiltered(db, layout, expression, scope, edge.lo as number, hi, keep) };
}

/** Whether any match lies at or below `hi`. */
const ANY_BELOW = 'SELECT 1 FROM history_fts WHERE history_fts MATCH ? AND rowid <= ? LIMIT 1';

/** Matches at or below `hi` (doclists only, no ranking), counted up to `max` + 1. */
const COUNT_BELOW = 'SELECT count(*) FROM (SELECT 1 FROM history_fts WHERE history_fts MATCH ? AND rowid <= ? LIMIT ?)';

/** Candidates for the phrases (all must match in one document) within `scope`, newest matches first, bounded by `budget`. */
export function gatherFts(db: Db, layout: Layout, phrases: readonly string[], scope: Scope, budget: FtsBudget = FTS_BUDGET): Gathered {
  return walk(db, layout, phrases.join(' AND '), scope, budget);
}

/** `gathered` plus the lines that match the phrases only across their fragments, in the range it examined. */
export function withSplitLines(db: Db, layout: Layout, phrases: readonly string[], scope: Scope, gathered: Gathered): Gathered {
  const split = splitLines(db, layout, phrases, scope, gathered.floor ?? 0, TOP);
  return split.length === 0 ? gathered : { ...gathered, candidates: [...gathered.candidates, ...split], passed: gathered.passed + split.length };
}

function walk(db: Db, layout: Layout, expression: string, scope: Scope, budget: FtsBudget): Gathered {
  let candidates: Candidate[] = [];
  if (scope.empty) return { candidates, truncated: false, exhausted: true, examined: 0, passed: 0, floor: 0 };
  const started = performance.now();
  let hi = TOP;
  let size = budget.firstWindow;
  let examined = 0;
  let passed = 0;
  for (;;) {
    const want = Math.min(size, budget.maxMatches - examined);
    const window = runWindow(db, layout, expression, scope, hi, want, budget.keep);
    const { n, lo } = window;
    if (n === 0) return { candidates, truncated: false, exhausted: true, examined, passed, floor: 0 };
    passed += window.passed;
    examined += n;
    candidates = best([...candidates, ...window.rows], budget.keep);
    if (n < want) return { candidates, truncated: false, exhausted: true, examined, passed, floor: 0 };
    hi = lo - 1;
    const rate = Math.max(passed / examined, 1 / budget.maxWindow);
    size = Math.min(budget.maxWindow, Math.max(budget.firstWindow, Math.ceil(((budget.enough - passed) / rate) * 1.25)));
    // A window is only started if, at the pace so far, it ends within the budget.
    const elapsed = performance.now() - started;
    const projected = elapsed + (elapsed / examined) * size;
    const limit = passed >= budget.minPassed ? budget.timeMs : passed > 0 ? budget.hardTimeMs : budget.emptyTimeMs;
    if (passed >= budget.enough || examined >= budget.maxMatches || projected > limit) {
      // Selective filters that left the page short: rank the remaining matches at once if they are few enough.
      if (scope.where !== '' && passed < budget.minPassed) {
        const rest = prepared(db, COUNT_BELOW).pluck().get(expression, hi, budget.rankRestMax + 1) as number;
        if (rest <= budget.rankRestMax) {
          const ranked = rest === 0 ? { rows: [], passed: 0 } : rankFiltered(db, layout, expression, scope, 0, hi, budget.keep);
          return { candidates: best([...candidates, ...ranked.rows], budget.keep), truncated: false, exhausted: true, examined: examined + rest, passed: passed + ranked.passed, floor: 0 };
        }
      }
      const more = prepared(db, ANY_BELOW).get(expression, hi) !== undefined;
      return { candidates, truncated: more, exhausted: !more, examined, passed, floor: more ? lo : 0 };
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
