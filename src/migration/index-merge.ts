// The copy pass writes history.db's FTS5 index: history_documents' insert
// trigger adds a segment per chunk statement. Left to itself, FTS5 merges
// those segments inside the statements and commits that wrote them
// (automerge, and a crisis merge once a level holds 'crisismerge' segments):
// on the 1.9 M-row bench home that made copy units of 100-350 ms, where a
// unit's whole time, its commit included, must stay within the unit budget.
// So the copy holds FTS5's own merging off, as capture does
// (src/store/fts-merge.ts), and merges in units of its own between copy
// units, at the backlog's fanout, as capture merges while it has a backlog.
// Each merge unit passes the gate like any other unit (yield, pressure,
// stop) and starts merge steps while its time lasts; a merge interrupted by
// a crash is continued by the next one (FTS5 keeps its state in the index).
//
// The wall: an FTS5 merge step ends only at a term boundary, so one step
// merges a whole term's doclist over the segments it merges. On that home
// single merge steps, each asked for 64 pages, took about 200 ms, recurring
// every 16 s or so of the copy; the merge down to FTS5's default fanout (4)
// that an idle capture runs took a 739 ms step. The copy leaves that last merge to the
// capture loop, which runs it on the writer thread once it has no backlog,
// as it does after any backlog (fts-merge.ts).

import { BACKLOG_SEGMENTS_PER_MERGE, FtsMerger, holdCommitMerges } from '../store/fts-merge.ts';
import type { PassContext } from './context.ts';
import { runUnit } from './context.ts';

/** The legacy table whose triggers write the FTS5 index. */
export const INDEXED_TABLE = 'history_documents';

/** Share of the unit budget a merge unit starts new merge steps in (the last step may run past it). */
const MERGE_SHARE_OF_UNIT = 0.5;

export class CopyIndexMerge {
  private readonly merger: FtsMerger;

  /** Holds FTS5's merges inside commits off for history.db (persistent; capture keeps it so). */
  constructor(private readonly ctx: PassContext) {
    const db = ctx.history;
    db.transaction(() => holdCommitMerges(db)).immediate();
    this.merger = new FtsMerger(db);
  }

  /** Between copy units: merge units until no level holds the backlog's fanout of segments. */
  async step(): Promise<void> {
    this.merger.fanout(BACKLOG_SEGMENTS_PER_MERGE);
    const budgetMs = this.ctx.unitMs * MERGE_SHARE_OF_UNIT;
    let more = true;
    while (more) {
      more = await runUnit(this.ctx, { kind: 'merge', table: 'history_fts', pinned: false }, (unit) => {
        const before = this.merger.merged;
        const remains = this.merger.run(this.ctx.mergePages, budgetMs);
        // Reported (status, benchmarks) when it merged something.
        unit.worked = this.merger.merged > before;
        return remains;
      });
    }
  }
}
