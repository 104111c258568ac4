// The FTS5 engine: every phrase of the query must match (AND), ranked by
// bm25, then newest.
//
// Bounded work. Ranking every match of a very common word costs time in
// proportion to the corpus, so matches are examined newest first (by rowid,
// which FTS5 iterates natively) in windows of the newest N matches below the
// previous window, and the hits are the best-ranked among the newest
// `enough` matches that pass the filters.
//   Without filters a window is ranked in SQLite, which returns only the best
// few. The first window holds `firstWindow` matches; the next (up to
// `maxWindow`) is sized to reach `enough`, because every statement pays
// bm25's fixed cost of counting each phrase's documents.
//   With filters a window is scanned newest first and returns the matches
// that pass, with their bm25, until `enough` passed: bm25 is computed only
// for those, and the scan stops there (a filter most matches pass costs a
// few hundred matches, not a window). Later windows are sized from the pass
// rate seen so far.
//   A filter with an index of its own (the agent: history_document_facets by
// agent and rowid) moves each window's start down to the newest document
// that filter lets pass, so matches in stretches where none can pass are
// skipped, not examined.
// The walk stops once `enough` matches passed, the matches are exhausted, or
// the time budget is spent (a longer one while fewer than a page passed, so
// that selective filters still find what exists; and if the page is still
// short and few enough matches remain, those are scanned to the end in one
// statement). When it stops before the oldest match the result says so
// (truncated).

import type { Db } from '../open.ts';
import type { Layout } from './layout.ts';
import { splitLines } from './fragments.ts';
import { type Scope, scopeJoins } from './scope.ts';
import { prepared } from '../statements.ts';
import { ROWID } from './rowid.ts';

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
  /** Matches examined (before filters; with filters counted by whole windows, so at most this many). */
  readonly examined: number;
  /** Matches that passed the filters. */
  readonly passed: number;
}

export interface FtsBudget {
  /** Matches in the first window (later ones are sized from the pass rate, up to maxWindow). */
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
   * and at most this many matches remain, those are scanned in one
   * statement: the page is full (or every passing match) instead of short.
   */
  readonly rankRestMax: number;
}

export const FTS_BUDGET: FtsBudget = {
  firstWindow: 1024,
  maxWindow: 4096,
  enough: 128,
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
const UNFILTERED = `WITH w AS MATERIALIZED (SELECT rowid, rank FROM history_fts WHERE history_fts MATCH ? AND rowid <= ${ROWID} ORDER BY rowid DESC LIMIT ?)
    SELECT NULL AS rowid, NULL AS score, count(*) AS n, min(rowid) AS lo, NULL AS passed FROM w
    UNION ALL
    SELECT * FROM (SELECT rowid, rank AS score, NULL AS n, NULL AS lo, count(*) OVER () AS passed FROM w ORDER BY rank, rowid DESC LIMIT ?)`;

/** Where the window of the newest `size` matches at or below `hi` ends (rowids only, in C). */
const BOUNDARY = `SELECT count(*) AS n, min(rowid) AS lo FROM (SELECT rowid FROM history_fts WHERE history_fts MATCH ? AND rowid <= ${ROWID} ORDER BY rowid DESC LIMIT ?)`;

/**
 * With filters: the newest matches in [lo, hi] that pass, with their bm25,
 * at most `need` of them. FTS5 consumes the ORDER BY (no sort), so the scan
 * stops at the `need`th passing match, and bm25 is evaluated only for the
 * rows returned. CROSS JOIN keeps the FTS5 table the outer loop (otherwise
 * the planner may scan history_documents).
 */
function passingSql(layout: Layout, scope: Scope): string {
  return `SELECT f.rowid AS rowid, f.rank AS score FROM history_fts f ${scopeJoins(layout, scope, 'f.rowid')}
    WHERE history_fts MATCH ? AND f.rowid BETWEEN ${ROWID} AND ${ROWID}${scope.where} ORDER BY f.rowid DESC LIMIT ?`;
}

/** Whether any match lies at or below `hi`. */
const ANY_BELOW = `SELECT 1 FROM history_fts WHERE history_fts MATCH ? AND rowid <= ${ROWID} LIMIT 1`;

/** Matches at or below `hi` (doclists only, no ranking), counted up to `max` + 1. */
const COUNT_BELOW = `SELECT count(*) FROM (SELECT 1 FROM history_fts WHERE history_fts MATCH ? AND rowid <= ${ROWID} LIMIT ?)`;

/** Candidates for the phrases (all must match in one document) within `scope`, newest matches first, bounded by `budget`. */
export function gatherFts(db: Db, layout: Layout, phrases: readonly string[], scope: Scope, budget: FtsBudget = FTS_BUDGET): Gathered {
  if (scope.empty) return { candidates: [], truncated: false, exhausted: true, examined: 0, passed: 0, floor: 0 };
  const expression = phrases.join(' AND ');
  return scope.where === '' ? walkUnfiltered(db, expression, budget) : walkFiltered(db, layout, expression, scope, budget);
}

/** `gathered` plus the lines that match the phrases only across their fragments, in the range it examined. */
export function withSplitLines(db: Db, layout: Layout, phrases: readonly string[], scope: Scope, gathered: Gathered): Gathered {
  const split = splitLines(db, layout, phrases, scope, gathered.floor ?? 0, TOP);
  return split.length === 0 ? gathered : { ...gathered, candidates: [...gathered.candidates, ...split], passed: gathered.passed + split.length };
}

/** The time and match bounds of one walk. */
class Bounds {
  private readonly started = performance.now();
  constructor(private readonly budget: FtsBudget) {}

  /** Whether a window of `size` more matches may start, at the pace so far (`examined` matches), with `passed` passed. */
  allows(examined: number, passed: number, size: number): boolean {
    const { budget } = this;
    if (passed >= budget.enough || examined >= budget.maxMatches) return false;
    const elapsed = performance.now() - this.started;
    const limit = passed >= budget.minPassed ? budget.timeMs : passed > 0 ? budget.hardTimeMs : budget.emptyTimeMs;
    return elapsed + (elapsed / examined) * size <= limit;
  }

  /** The next window's size: `enough` reached at the pass rate so far, within [firstWindow, maxWindow]. */
  nextSize(examined: number, passed: number): number {
    const { budget } = this;
    const rate = Math.max(passed / examined, 1 / budget.maxWindow);
    return Math.min(budget.maxWindow, Math.max(budget.firstWindow, Math.ceil(((budget.enough - passed) / rate) * 1.25)));
  }
}

function walkUnfiltered(db: Db, expression: string, budget: FtsBudget): Gathered {
  const bounds = new Bounds(budget);
  let candidates: Candidate[] = [];
  let hi = TOP;
  let size = budget.firstWindow;
  let examined = 0;
  let passed = 0;
  for (;;) {
    const want = Math.min(size, budget.maxMatches - examined);
    const [edge, ...rows] = prepared(db, UNFILTERED).all(expression, hi, want, budget.keep) as WindowRow[];
    const n = edge?.n ?? 0;
    examined += n;
    passed += rows[0]?.passed ?? 0;
    candidates = best([...candidates, ...rows], budget.keep);
    if (n < want) return { candidates, examined, passed, ...EXHAUSTED };
    const lo = edge?.lo as number;
    hi = lo - 1;
    size = bounds.nextSize(examined, passed);
    if (!bounds.allows(examined, passed, size)) return { candidates, examined, passed, ...stoppedAt(db, expression, lo) };
  }
}

function walkFiltered(db: Db, layout: Layout, expression: string, scope: Scope, budget: FtsBudget): Gathered {
  const bounds = new Bounds(budget);
  const passing = prepared(db, passingSql(layout, scope));
  const rows: Candidate[] = [];
  let examined = 0;
  const done = (end: Pick<Gathered, 'truncated' | 'exhausted' | 'floor'>): Gathered => ({ candidates: best(rows, budget.keep), examined, passed: rows.length, ...end });
  /** Scan [lo, hi] for passing matches; once `enough` passed, where the walk ends (at the last of them), else null. */
  const scan = (lo: number, hi: number): Pick<Gathered, 'truncated' | 'exhausted' | 'floor'> | null => {
    const found = passing.all(expression, lo, hi, ...scope.params, budget.enough - rows.length) as Candidate[];
    rows.push(...found);
    return rows.length >= budget.enough ? stoppedAt(db, expression, (found.at(-1) as Candidate).rowid) : null;
  };
  let hi = TOP;
  let size = budget.firstWindow;
  for (;;) {
    const passable = highestPassable(db, scope, hi);
    if (passable === null) return done(EXHAUSTED);
    hi = passable;
    const want = Math.min(size, budget.maxMatches - examined);
    const edge = prepared(db, BOUNDARY).get(expression, hi, want) as { n: number; lo: number | null };
    if (edge.n === 0) return done(EXHAUSTED);
    const lo = edge.lo as number;
    // Counts the whole window even when the scan stopped inside it (an upper bound).
    examined += edge.n;
    const filled = scan(lo, hi);
    if (filled !== null) return done(filled);
    if (edge.n < want) return done(EXHAUSTED);
    hi = lo - 1;
    size = bounds.nextSize(examined, rows.length);
    if (!bounds.allows(examined, rows.length, size)) {
      // Selective filters that left the page short: scan the remaining matches at once if they are few enough.
      if (rows.length < budget.minPassed) {
        const rest = prepared(db, COUNT_BELOW).pluck().get(expression, hi, budget.rankRestMax + 1) as number;
        if (rest <= budget.rankRestMax) {
          examined += rest;
          return done((rest > 0 ? scan(0, hi) : null) ?? EXHAUSTED);
        }
      }
      return done(stoppedAt(db, expression, lo));
    }
  }
}

/**
 * The highest rowid at or below `hi` that the filters' indexes let pass
 * (`hi` itself when no filter has one; null when none can), so a window
 * starts there: the matches above it cannot pass, and are neither scanned
 * nor counted against the budget.
 */
function highestPassable(db: Db, scope: Scope, hi: number): number | null {
  let top = hi;
  for (const leap of scope.leaps) {
    const below = prepared(db, leap.sql).pluck().get(...leap.params, top) as number | null;
    if (below === null) return null;
    top = below;
  }
  return top;
}

const EXHAUSTED = { truncated: false, exhausted: true, floor: 0 } as const;

/** The walk examined every match at or above `floor`: truncated when matches remain below it. */
function stoppedAt(db: Db, expression: string, floor: number): Pick<Gathered, 'truncated' | 'exhausted' | 'floor'> {
  const more = prepared(db, ANY_BELOW).get(expression, floor - 1) !== undefined;
  return more ? { truncated: true, exhausted: false, floor } : EXHAUSTED;
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
