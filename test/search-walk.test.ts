// The bounded FTS5 walk (src/store/search/fts.ts) against an oracle that
// reads every match: with the time budgets lifted, so that only the match
// bounds stop it, the walk must return exactly
//   with filters     the best `keep` (bm25, then newest) of the newest
//                    `enough` matches that pass, computed here from all
//                    passing matches through history_documents;
//   without filters  the best `keep` of the newest `firstWindow` matches
//                    (or, past it, of exactly the matches it examined);
// and say `truncated` exactly when matches older than what it examined
// remain. Small windows make it cross many window edges. Every planted query
// of a make-corpus home, under agent, kind and time filters.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { SearchFilters } from '../protocols/search.ts';
import { openReader, type Db } from '../src/store/open.ts';
import { FTS_BUDGET, type FtsBudget, gatherFts } from '../src/store/search/fts.ts';
import { layoutOf } from '../src/store/search/layout.ts';
import { parseQuery } from '../src/store/search/query.ts';
import { buildScope } from '../src/store/search/scope.ts';
import { corpusHome, type PlantedQuery, searchRequest } from './helpers/search-homes.ts';

const UNBOUNDED_TIME = { timeMs: Number.POSITIVE_INFINITY, hardTimeMs: Number.POSITIVE_INFINITY, emptyTimeMs: Number.POSITIVE_INFINITY };

interface Row {
  readonly rowid: number;
  readonly score: number;
}

const byRank = (a: Row, b: Row): number => a.score - b.score || b.rowid - a.rowid;

/** Every match of `expression` passing `filters` (read from history_documents), newest first. */
function oracle(db: Db, expression: string, filters: SearchFilters): Row[] {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const [column, op, value] of [
    ['agent', '=', filters.agent],
    ['kind', '=', filters.kind],
    ['at', '>=', filters.since],
    ['at', '<', filters.until],
  ] as const) {
    if (value === undefined) continue;
    where.push(` AND d.${column} ${op} ?`);
    params.push(value);
  }
  return db
    .prepare(`SELECT f.rowid AS rowid, f.rank AS score FROM history_fts f JOIN history_documents d ON d.rowid = f.rowid WHERE history_fts MATCH ?${where.join('')} ORDER BY f.rowid DESC`)
    .all(expression, ...params) as Row[];
}

function walk(db: Db, query: string, filters: SearchFilters, budget: FtsBudget) {
  const layout = layoutOf(db);
  const parsed = parseQuery(query);
  const scope = buildScope(db, layout, filters, { doc: 'f.rowid' });
  return { expression: parsed.ftsPhrases.join(' AND '), gathered: gatherFts(db, layout, parsed.ftsPhrases, scope, budget) };
}

const ids = (rows: readonly Row[]): number[] => [...rows].sort(byRank).map((r) => r.rowid);

describe('the bounded FTS5 walk against every match', () => {
  let db: Db;
  let queries: PlantedQuery[];
  let filterSets: SearchFilters[];

  before(async () => {
    const corpus = await corpusHome({ bytes: '8MiB', seed: 11 });
    db = openReader(corpus.historyDb) as Db;
    queries = corpus.queries.filter((q) => q.kind !== 'absent' && q.filters.project === undefined);
    const { lo, hi } = db.prepare('SELECT min(at) AS lo, max(at) AS hi FROM history_documents').get() as { lo: number; hi: number };
    const middle = Math.round((lo + hi) / 2);
    filterSets = [
      { agent: 'claude' },
      { agent: 'codex' },
      { agent: 'opencode' },
      { since: middle },
      { agent: 'codex', until: middle },
      { kind: 'transcript', since: Math.round((lo + middle) / 2) },
    ];
  });

  test('with filters: the best of the newest `enough` passing matches, across window edges', () => {
    let truncated = 0;
    let cut = 0;
    for (const enough of [12, 10_000]) {
      const budget: FtsBudget = { ...FTS_BUDGET, ...UNBOUNDED_TIME, firstWindow: 16, maxWindow: 64, enough, keep: 8 };
      for (const q of queries) {
        for (const filters of [...filterSets, ...(Object.keys(q.filters).length > 0 ? [searchRequest(q.text, q.filters).filters] : [])]) {
          const { expression, gathered } = walk(db, q.text, filters, budget);
          const passing = oracle(db, expression, filters);
          const newest = passing.slice(0, enough);
          const label = `${q.id} ${JSON.stringify(q.text)} ${JSON.stringify(filters)} enough ${enough}`;
          assert.deepEqual(ids(gathered.candidates), ids(newest).slice(0, budget.keep), label);
          assert.equal(gathered.passed, newest.length, label);
          const floor = newest.at(-1)?.rowid ?? 0;
          const older = passing.length >= enough && (db.prepare('SELECT 1 FROM history_fts WHERE history_fts MATCH ? AND rowid < ? LIMIT 1').get(expression, floor) !== undefined);
          assert.equal(gathered.truncated, older, `${label}: truncated`);
          if (older) truncated++;
          if (newest.length > budget.keep) cut++;
        }
      }
    }
    assert.ok(truncated > 20 && cut > 20, `the bounds were reached (${truncated} truncated, ${cut} cut to keep)`);
  });

  test('without filters: the best of the newest `firstWindow` matches', () => {
    const budget: FtsBudget = { ...FTS_BUDGET, ...UNBOUNDED_TIME, firstWindow: 32, maxWindow: 64, enough: 32, keep: 8 };
    let truncated = 0;
    for (const q of queries) {
      const { expression, gathered } = walk(db, q.text, {}, budget);
      const all = oracle(db, expression, {});
      assert.deepEqual(ids(gathered.candidates), ids(all.slice(0, budget.firstWindow)).slice(0, budget.keep), q.id);
      assert.equal(gathered.truncated, all.length > budget.firstWindow, `${q.id}: truncated`);
      if (gathered.truncated) truncated++;
    }
    assert.ok(truncated > 20, `${truncated} truncated`);
  });

  test('without filters, past the first window: the best of exactly the matches it says it examined', () => {
    const budget: FtsBudget = { ...FTS_BUDGET, ...UNBOUNDED_TIME, firstWindow: 16, maxWindow: 48, enough: 100, keep: 8 };
    let windows = 0;
    for (const q of queries) {
      const { expression, gathered } = walk(db, q.text, {}, budget);
      const all = oracle(db, expression, {});
      assert.deepEqual(ids(gathered.candidates), ids(all.slice(0, gathered.examined)).slice(0, budget.keep), q.id);
      assert.equal(gathered.passed, gathered.examined, q.id);
      if (gathered.truncated) {
        assert.ok(gathered.examined >= budget.enough && gathered.examined < budget.enough + budget.maxWindow, `${q.id}: examined ${gathered.examined}`);
        assert.equal(gathered.floor, all[gathered.examined - 1]?.rowid, `${q.id}: floor`);
        windows++;
      } else {
        assert.equal(gathered.examined, all.length, `${q.id}: every match examined`);
      }
    }
    assert.ok(windows > 20, `${windows} walks crossed several windows`);
  });
});
