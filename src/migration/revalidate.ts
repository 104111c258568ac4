// Resuming the snapshot against a new consistent view of bridge.db.
//
// Saved chunks of a mutable table are re-read from the new view and compared
// by digest. Unchanged: they are reused and the table's high-water mark rises
// to the new view's (rows appended since are snapshotted too). Changed (or a
// changed definition): the table's snapshot so far is kept in the snapshot
// file under `retained_<table>_g<generation>` (never dropped), the
// generation goes up and the table is snapshotted again from the new view.
// Append-only tables (conversation_records, guarded by the legacy triggers
// that forbid UPDATE and DELETE) cannot change below their high-water mark,
// so their saved chunks are not re-read; only the mark rises. A legacy table
// that vanished is a disagreement and fails closed.
//
// The snapshot commits before the progress database (SnapshotWriter.unit),
// so an interruption between the two leaves work no checkpoint names yet:
// a retain whose rename committed is completed; rows past a table's last
// checkpoint are kept when the view holds the same rows, otherwise that
// generation is retained like a changed one.

import { HistoryError } from '../../protocols/errors.ts';
import type { PassContext } from './context.ts';
import { runUnit } from './context.ts';
import type { LegacyTableInfo } from './legacy-tables.ts';
import { legacyTablesIn, sameShape } from './legacy-tables.ts';
import { addPlannedTable, plannedState, shapeOf } from './plan.ts';
import type { TableState } from './progress-db.ts';
import { ChunkEncoder, digestOf } from './row-sql.ts';
import { quoteIdent } from './rows.ts';
import type { SnapshotWriter } from './snapshot-files.ts';
import type { SourceView } from './source-view.ts';
import { hasTable } from '../store/open.ts';

export function retainedName(table: string, generation: number): string {
  return `retained_${table}_g${generation}`;
}

/** The first saved chunk that differs in the view, described; null when all match. Saved chunks are re-read in units. */
async function changedChunk(ctx: PassContext, view: SourceView, writer: SnapshotWriter, t: TableState): Promise<string | null> {
  const encoder = new ChunkEncoder(view.db, shapeOf(t));
  let end: bigint | null = null;
  for (;;) {
    const verdict = await runUnit(ctx, { kind: 'revalidate', table: t.name, pinned: true }, (unit) => {
      do {
        const chunk = writer.progress.nextChunk(t.name, t.generation, end);
        if (chunk === undefined) return { changed: null, done: true };
        const encoded = encoder.encode(chunk);
        unit.chunk({ rows: encoded.rows, bytes: chunk.bytes, after: chunk.after, end: chunk.end });
        if (encoded.rows !== chunk.rows || digestOf(encoded) !== chunk.sha256) {
          return { changed: `rows ${chunk.after ?? 'first'}..${chunk.end} changed in bridge.db`, done: true };
        }
        end = chunk.end;
      } while (unit.more());
      return { changed: null, done: false };
    });
    if (verdict.done) return verdict.changed;
  }
}

/** Keep the snapshot of `t` under a retained name and start the next generation from `now` (the rename commits first: see completeRetain). */
function retainAndRestart(writer: SnapshotWriter, t: TableState, now: LegacyTableInfo, reason: string): void {
  writer.unit(() => {
    writer.db.exec(`ALTER TABLE main.${quoteIdent(t.name)} RENAME TO ${quoteIdent(retainedName(t.name, t.generation))}`);
    recordRetained(writer, t, now, reason);
  });
}

/** The progress side of a retain: the retained generation, and the next one planned (its table created unless it exists). */
function recordRetained(writer: SnapshotWriter, t: TableState, now: LegacyTableInfo, reason: string): void {
  writer.progress.addRetained({ name: t.name, generation: t.generation, retainedAs: retainedName(t.name, t.generation), rows: t.passes.snapshot.rows, reason, at: Date.now() });
  addPlannedTable(writer, now, t.generation + 1);
}

/**
 * A retain whose snapshot side committed (the generation renamed, the next
 * one's table created) but whose progress side did not: finish it, whatever
 * the new view shows, since the table now holds the next generation.
 */
function completeRetain(writer: SnapshotWriter, t: TableState, now: LegacyTableInfo): boolean {
  if (!hasTable(writer.db, retainedName(t.name, t.generation))) return false;
  writer.unit(() => recordRetained(writer, t, now, 'retained before an interruption; recorded after it'));
  return true;
}

/**
 * Rows the snapshot holds past the table's last checkpoint (a unit whose
 * rows committed but whose checkpoint did not) must be the view's rows, or
 * the next chunk would find stale rows in its way. Returns whether they
 * differ. At most one unit of rows.
 */
function tailDiffers(view: SourceView, writer: SnapshotWriter, t: TableState): boolean {
  const last = writer.db.prepare(`SELECT max(rowid) FROM main.${quoteIdent(t.name)}`).pluck().safeIntegers(true).get() as bigint | null;
  const end = t.passes.snapshot.end;
  if (last === null || (end !== null && last <= end)) return false;
  const range = { after: end, end: last };
  const ours = new ChunkEncoder(writer.db, shapeOf(t)).encode(range);
  const theirs = new ChunkEncoder(view.db, shapeOf(t)).encode(range);
  return ours.rows !== theirs.rows || !ours.bytes.equals(theirs.bytes);
}

/** Unchanged: reuse the saved chunks and snapshot rows added since (a higher high-water mark). */
function raiseHighWater(writer: SnapshotWriter, t: TableState, now: LegacyTableInfo): void {
  if (now.maxRowid === null || (t.upper !== null && now.maxRowid <= t.upper)) return;
  const planned = plannedState(now, t.generation);
  const raised: TableState = { ...t, upper: now.maxRowid, estimate: Math.max(t.passes.snapshot.rows, planned.estimate), passes: { ...t.passes, snapshot: { ...t.passes.snapshot, done: false } } };
  writer.progressDb.transaction(() => writer.progress.saveTable(raised)).immediate();
}

export async function revalidate(ctx: PassContext, view: SourceView, writer: SnapshotWriter): Promise<void> {
  const present = new Map(legacyTablesIn(view.db).map((info) => [info.name, info]));
  const saved = writer.progress.tables();
  for (const t of saved) {
    const now = present.get(t.name);
    if (now === undefined) {
      throw new HistoryError('VERIFY_FAILED', `legacy table ${t.name} disappeared from bridge.db during the migration`, { step: 'revalidate snapshot' });
    }
    if (completeRetain(writer, t, now)) continue;
    let reason: string | null = null;
    if (now.sql !== t.sql || !sameShape(now.columns, t.columns)) reason = 'its definition changed in bridge.db';
    else if (!(t.appendOnly && now.appendOnly)) reason = await changedChunk(ctx, view, writer, t);
    if (reason === null && tailDiffers(view, writer, t)) reason = 'rows written after its last checkpoint differ in bridge.db';
    if (reason !== null) retainAndRestart(writer, t, now, reason);
    else raiseHighWater(writer, t, now);
  }
  const known = new Set(saved.map((t) => t.name));
  const added = [...present.values()].filter((info) => !known.has(info.name));
  if (added.length > 0) writer.unit(() => added.forEach((info) => addPlannedTable(writer, info, 0)));
}
