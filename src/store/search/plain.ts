// The literal engine, for stores without FTS5 and queries FTS5 cannot express
// (no indexable word, or a script without spaces where a word is a
// substring): every needle must occur in the case- and diacritic-folded
// body (or, for a line captured as several fragments, in the line); newest
// first. It reads bodies, so it is bounded by a time budget and
// says when it stopped early.

import { fold } from '../../text/fold.ts';
import type { Db } from '../open.ts';
import { fragmentIndex } from './fragments.ts';
import type { Candidate, Gathered } from './fts.ts';
import type { Layout } from './layout.ts';
import type { Scope } from './scope.ts';
import { prepared } from '../statements.ts';

export interface PlainBudget {
  readonly timeMs: number;
  /** Stop once this many documents matched (the caller dedupes and keeps `limit`). */
  readonly enough: number;
}

const ASCII = /^[\x00-\x7f]*$/;
const BATCH = 256;

/** Whether `body` contains every needle after folding; `folded` is the stored folded body ('' when not stored). */
export function containsAll(body: string, folded: string, needles: readonly string[]): boolean {
  if (folded !== '') return needles.every((n) => folded.includes(n));
  const lower = body.toLowerCase();
  if (needles.every((n) => lower.includes(n))) return true;
  // Lower-casing alone cannot add a match to ASCII text; folding can elsewhere.
  if (ASCII.test(body)) return false;
  const full = fold(body);
  return needles.every((n) => full.includes(n));
}

/** Which needles `body` contains after folding. */
function found(body: string, folded: string, needles: readonly string[]): boolean[] {
  const text = folded !== '' ? folded : fold(body);
  return needles.map((n) => text.includes(n));
}

/**
 * Lines spanning several fragment documents: the needles each fragment
 * holds, until the line holds all of them (then it is a match once).
 */
class SplitLines {
  private readonly partial = new Map<string, boolean[]>();
  private readonly matched = new Set<string>();

  constructor(
    private readonly lineOf: ReadonlyMap<number, string>,
    private readonly needles: readonly string[],
  ) {}

  /** Whether `row` completes a line that no single fragment matched. */
  completes(row: Row): boolean {
    const key = this.lineOf.get(row.rowid);
    if (key === undefined || this.needles.length < 2 || this.matched.has(key)) return false;
    const here = found(row.body, row.folded, this.needles);
    const union = (this.partial.get(key) ?? here.map(() => false)).map((seen, i) => seen || (here[i] as boolean));
    this.partial.set(key, union);
    if (!union.every(Boolean)) return false;
    this.matched.add(key);
    return true;
  }
}

interface Row {
  readonly rowid: number;
  readonly at: number;
  readonly body: string;
  readonly folded: string;
}

/**
 * Matching documents, newest first. Read in keyset-paged batches (no
 * statement stays open between batches, so the budget check never leaves an
 * iterator behind).
 */
export function gatherPlain(db: Db, layout: Layout, needles: readonly string[], scope: Scope, budget: PlainBudget): Gathered {
  const candidates: Candidate[] = [];
  if (scope.empty) return { candidates, truncated: false, exhausted: true, examined: 0, passed: 0 };
  const page = prepared(
    db,
    `SELECT d.rowid AS rowid, d.at AS at, ${layout.text} AS body, d.folded AS folded FROM history_documents d ${layout.refJoin('d.rowid')}
     WHERE d.at <= ? AND NOT (d.at = ? AND d.rowid >= ?)${scope.where} ORDER BY d.at DESC, d.rowid DESC LIMIT ${BATCH}`,
  );
  const split = new SplitLines(needles.length > 1 && layout.refs && layout.records ? fragmentIndex(db).lineOf : new Map(), needles);
  const started = performance.now();
  let at = Number.MAX_SAFE_INTEGER;
  let rowid = Number.MAX_SAFE_INTEGER;
  let examined = 0;
  for (;;) {
    const rows = page.all(at, at, rowid, ...scope.params) as Row[];
    for (const row of rows) {
      examined++;
      if (containsAll(row.body, row.folded, needles) || split.completes(row)) candidates.push({ rowid: row.rowid, score: 0 });
    }
    if (rows.length < BATCH) return { candidates, truncated: false, exhausted: true, examined, passed: candidates.length };
    const last = rows[rows.length - 1] as Row;
    at = last.at;
    rowid = last.rowid;
    // Enough newest matches is an exact answer; running out of time is not.
    if (candidates.length >= budget.enough) return { candidates, truncated: false, exhausted: false, examined, passed: candidates.length };
    if (performance.now() - started > budget.timeMs) return { candidates, truncated: true, exhausted: false, examined, passed: candidates.length };
  }
}
