// Pass 1, snapshot: copy the legacy history tables of bridge.db (only those,
// never the whole broker database) into the snapshot file, from one pinned,
// consistent read view, chunk by chunk. Each chunk is read from the view,
// written with its rowids, read back and compared by bh-row-v1 digest, and
// recorded with its checkpoint; the chunks of a unit (context.ts) commit
// together, the snapshot first, then their checkpoints (SnapshotWriter.unit).
//
// The first view plans the tables (their CREATE statements and rowid
// high-water marks). Any later view (after a restart, or after sustained
// pressure released the previous one) is first checked against what was
// saved (revalidate.ts). The snapshot file stays the same throughout.

import type { Db } from '../store/open.ts';
import type { PassContext, Unit } from './context.ts';
import { checkChunk, checkEncoded, runUnit } from './context.ts';
import { SourceReleased } from './gate.ts';
import { legacyTablesIn } from './legacy-tables.ts';
import { addPlannedTable, shapeOf } from './plan.ts';
import type { TableState } from './progress-db.ts';
import { revalidate } from './revalidate.ts';
import { chunkDigest } from './row-hash.ts';
import { ChunkEncoder } from './row-sql.ts';
import { RowReader, RowWriter } from './rows.ts';
import type { SnapshotWriter } from './snapshot-files.ts';
import { openSnapshotWriter } from './snapshot-files.ts';
import { SourceView } from './source-view.ts';

export interface SnapshotFiles {
  readonly bridgeDb: string;
  readonly snapshot: string;
}

export interface ViewEvents {
  /** The pinned view was taken (true) or released under pressure (false). */
  readonly onView: (pinned: boolean) => void;
}

function planTables(view: SourceView, writer: SnapshotWriter): void {
  const present = legacyTablesIn(view.db);
  const userVersion = view.db.pragma('user_version', { simple: true }) as number;
  writer.unit(() => {
    for (const info of present) addPlannedTable(writer, info, 0);
    writer.progress.setMeta('bridgeUserVersion', String(userVersion));
    writer.progress.setMeta('planned', String(Date.now()));
  });
}

interface SnapshotTarget {
  readonly db: Db;
  readonly encoder: ChunkEncoder;
  readonly writer: RowWriter;
}

/**
 * One snapshot chunk of `t` inside the unit's transaction: read from the
 * view (bounded), written with its rowids, read back inside the snapshot and
 * compared, recorded with its checkpoint. Returns the new state (done
 * when no row was left).
 */
function snapshotChunk(ctx: PassContext, source: RowReader, target: SnapshotTarget, writer: SnapshotWriter, t: TableState, unit: Unit): TableState {
  const pass = t.passes.snapshot;
  const chunk = t.upper === null ? null : source.next(pass.end, t.upper, ctx.bounds);
  if (chunk === null || chunk.end === null) {
    // Done; the plan's estimate becomes the exact row count of this generation.
    const exact: TableState = { ...t, estimate: pass.rows, passes: { ...t.passes, snapshot: { ...pass, done: true } } };
    writer.progress.saveTable(exact);
    return exact;
  }
  const record = { name: t.name, generation: t.generation, after: pass.end, end: chunk.end, rows: chunk.rows.length, bytes: chunk.bytes, sha256: chunkDigest(chunk.rows) };
  const next = { end: chunk.end, done: false, rows: pass.rows + chunk.rows.length, hash: null };
  target.writer.write(chunk.rows);
  checkEncoded(target.encoder.encode(record), record, 'snapshot', null, () => checkChunk(new RowReader(target.db, source.shape).range(record), record, 'snapshot', { expected: chunk.rows }));
  writer.progress.addChunk(record);
  writer.progress.savePass(t.name, 'snapshot', next);
  unit.chunk({ rows: record.rows, bytes: record.bytes, after: record.after, end: record.end });
  return { ...t, passes: { ...t.passes, snapshot: next } };
}

async function snapshotTable(ctx: PassContext, view: SourceView, writer: SnapshotWriter, table: TableState): Promise<void> {
  const shape = shapeOf(table);
  const source = new RowReader(view.db, shape);
  const target = { db: writer.db, encoder: new ChunkEncoder(writer.db, shape), writer: new RowWriter(writer.db, shape) };
  let t: TableState = table;
  while (!t.passes.snapshot.done) {
    // The chunks of one unit commit together, then their checkpoints (see SnapshotWriter.unit).
    t = await runUnit(ctx, { kind: 'snapshot', table: t.name, pinned: true }, (unit) => {
      let state = t;
      writer.unit(() => {
        do state = snapshotChunk(ctx, source, target, writer, state, unit);
        while (!state.passes.snapshot.done && unit.more());
      });
      return state;
    });
  }
}

/**
 * Run the snapshot pass to its end (then the phase is snapshot-verify).
 * Sustained pressure releases the view; the pass waits for calm and resumes
 * with a new view and the same snapshot file.
 */
export async function snapshotPass(ctx: PassContext, files: SnapshotFiles, events: ViewEvents): Promise<void> {
  const writer = openSnapshotWriter(files.snapshot);
  try {
    for (;;) {
      let view: SourceView | null = null;
      try {
        view = SourceView.pin(files.bridgeDb);
        events.onView(true);
        if (writer.progress.meta('planned') === null) planTables(view, writer);
        else await revalidate(ctx, view, writer);
        const tables = writer.progress.tables();
        ctx.onPass('snapshot', tables);
        for (const table of tables) await snapshotTable(ctx, view, writer, table);
        writer.settle();
        writer.progressDb.transaction(() => writer.progress.setPhase('snapshot-verify')).immediate();
        return;
      } catch (error) {
        if (!(error instanceof SourceReleased)) throw error;
        view?.release();
        events.onView(false);
        await ctx.gate.calm();
      } finally {
        view?.release();
      }
    }
  } finally {
    writer.close();
  }
}
