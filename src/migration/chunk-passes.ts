// Passes 2-4 walk the chunks the snapshot pass recorded, table by table, in
// the same order and with the same boundaries:
//   snapshot-verify  re-read every chunk from the snapshot (reopened read-only)
//   copy             copy the chunk into history.db with the original rowids
//                    (INSERT ... SELECT from the snapshot attached to the
//                    writer connection), read it back and check, commit (the
//                    snapshot's chunk is encoded only to explain a mismatch:
//                    rows read back that equal the recorded chunk are right
//                    whatever the snapshot holds)
//   verify           re-read every chunk from history.db
// Each chunk is checked against its recorded count and bh-row-v1 digest,
// encoded inside SQLite (row-sql.ts), and its checkpoint is written in the
// transaction of its unit (context.ts): the chunks of one unit commit
// together, copy's rows first (history.db), then their checkpoints (the
// progress database; a crash between the two repeats an idempotent copy).
// The two read-only passes also fold every row into a table-wide bh-row-v1
// stream digest whose state is saved with each checkpoint, so a resumed pass
// continues the same digest. After a table's last chunk, a row beyond it (or
// any row in a table that had none) is a disagreement: nothing may sit in
// the copied range but the copy.

import { HistoryError } from '../../protocols/errors.ts';
import type { Db } from '../store/open.ts';
import type { PassContext } from './context.ts';
import { checkChunk, checkEncoded, runUnit } from './context.ts';
import { CopyIndexMerge, INDEXED_TABLE } from './index-merge.ts';
import { columnShapes, sameShape } from './legacy-tables.ts';
import { shapeOf } from './plan.ts';
import type { ChunkRecord, PassState, ProgressStore, TableState } from './progress-db.ts';
import { ChunkEncoder } from './row-sql.ts';
import { quoteIdent, RowReader, type TableShape } from './rows.ts';
import { Sha256State } from './sha256-state.ts';

type ChunkPass = 'snapshot-verify' | 'copy' | 'verify';

/** The schema name of the snapshot while it is attached to the history.db writer for the copy. */
const SNAPSHOT_SCHEMA = 'migration_snapshot';

interface TableWork {
  /** Run `chunks` inside the pass's data transaction (copy: history.db's), or as is. */
  transaction(chunks: () => void): void;
  /** Check (and for copy, write) one chunk; feed `stream` with its rows. Synchronous. */
  chunk(chunk: ChunkRecord, stream: Sha256State | null): void;
  /** After the last chunk (end = its end, null when the table had no rows). */
  finish(end: bigint | null): void;
}

function noRowAfter(reader: RowReader, end: bigint | null, where: string): void {
  if (!reader.hasRowAfter(end)) return;
  throw new HistoryError(
    'VERIFY_FAILED',
    `${where}: ${reader.shape.name} holds rows ${end === null ? 'although the legacy table was empty' : `beyond rowid ${end}, the end of the legacy copy`}`,
    { step: where },
  );
}

interface WalkOptions {
  readonly stream: boolean;
  readonly work: (t: TableState) => TableWork;
  /** After each unit of table `t` (the copy merges the index it wrote). */
  readonly afterUnit?: (t: TableState) => Promise<void>;
}

async function walk(ctx: PassContext, pass: ChunkPass, progress: ProgressStore, options: WalkOptions): Promise<void> {
  const tables = progress.tables();
  ctx.onPass(pass, tables);
  for (const t of tables) {
    let state: PassState = t.passes[pass];
    if (state.done) continue;
    const work = options.work(t);
    const stream = options.stream ? new Sha256State(state.hash) : null;
    while (!state.done) {
      state = await runUnit(ctx, { kind: pass, table: t.name, pinned: false }, (unit) => {
        let next = state;
        progress.db
          .transaction(() => {
            work.transaction(() => {
              do {
                const chunk = progress.nextChunk(t.name, t.generation, next.end);
                if (chunk === undefined) {
                  work.finish(next.end);
                  next = { ...next, done: true };
                  progress.savePass(t.name, pass, next);
                  return;
                }
                work.chunk(chunk, stream);
                next = { end: chunk.end, done: false, rows: next.rows + chunk.rows, hash: stream?.save() ?? null };
                progress.savePass(t.name, pass, next);
                unit.chunk({ rows: chunk.rows, bytes: chunk.bytes, after: chunk.after, end: chunk.end });
              } while (unit.more());
            });
          })
          .immediate();
        return next;
      });
      await options.afterUnit?.(t);
    }
  }
}

/** A read-only pass over `db`: every chunk re-read, checked, and folded into the table's stream digest. */
function readPass(db: Db, where: 'snapshot-verify' | 'verify') {
  return (t: TableState): TableWork => {
    const shape = shapeOf(t);
    const encoder = new ChunkEncoder(db, shape);
    const reader = new RowReader(db, shape);
    return {
      transaction: (chunks) => chunks(),
      chunk: (chunk, stream) => checkEncoded(encoder.encode(chunk), chunk, where, stream),
      finish: (end) => noRowAfter(reader, end, where),
    };
  };
}

export async function snapshotVerifyPass(ctx: PassContext, progress: ProgressStore, snapshot: Db): Promise<void> {
  await walk(ctx, 'snapshot-verify', progress, { stream: true, work: readPass(snapshot, 'snapshot-verify') });
}

/** history.db's legacy tables must have exactly the snapshot's columns, or rows could not be copied faithfully. */
export function checkTargetShapes(progress: ProgressStore, snapshot: Db, history: Db): void {
  for (const t of progress.tables()) {
    const target = columnShapes(history, t.name);
    if (target.length === 0 || !sameShape(columnShapes(snapshot, t.name), target)) {
      throw new HistoryError('VERIFY_FAILED', `history.db table ${t.name} does not have the columns of the legacy table; its rows cannot be copied byte-exactly`, {
        step: 'copy',
      });
    }
  }
}

/** INSERT OR IGNORE of a rowid range from the attached snapshot, values as stored (storage class and bytes). */
function rangeCopy(history: Db, shape: TableShape) {
  const columns = ['rowid', ...shape.columns.map(quoteIdent)].join(', ');
  const into = `INSERT OR IGNORE INTO main.${quoteIdent(shape.name)} (${columns}) SELECT ${columns} FROM ${quoteIdent(SNAPSHOT_SCHEMA)}.${quoteIdent(shape.name)}`;
  const from = history.prepare(`${into} WHERE rowid > ? AND rowid <= ? ORDER BY rowid`).safeIntegers(true);
  const first = history.prepare(`${into} WHERE rowid <= ? ORDER BY rowid`).safeIntegers(true);
  return (chunk: ChunkRecord): void => void (chunk.after === null ? first.run(chunk.end) : from.run(chunk.after, chunk.end));
}

/**
 * Copy every chunk into history.db. The snapshot (already verified) is
 * attached to the writer connection for the pass, so rows move inside SQLite
 * with their storage classes and bytes, and each chunk is a single INSERT
 * (for history_documents: one FTS5 segment per chunk, not per row; merged
 * in units of their own, index-merge.ts). The snapshot is only read: every
 * statement names `main` as its target.
 */
export async function copyPass(ctx: PassContext, progress: ProgressStore, snapshot: Db, snapshotPath: string): Promise<void> {
  checkTargetShapes(progress, snapshot, ctx.history);
  const history = ctx.history;
  // A copy interrupted by an error the connection survived may have left it attached.
  const attached = (history.prepare('PRAGMA database_list').all() as Array<{ name: string }>).some((d) => d.name === SNAPSHOT_SCHEMA);
  if (attached) history.prepare(`DETACH DATABASE ${quoteIdent(SNAPSHOT_SCHEMA)}`).run();
  history.prepare(`ATTACH DATABASE ? AS ${quoteIdent(SNAPSHOT_SCHEMA)}`).run(snapshotPath);
  let failed = true;
  try {
    const merge = new CopyIndexMerge(ctx);
    await walk(ctx, 'copy', progress, {
      stream: false,
      afterUnit: (t) => (t.name === INDEXED_TABLE ? merge.step() : Promise.resolve()),
      work: (t) => {
        const shape = shapeOf(t);
        const source = new ChunkEncoder(history, shape, SNAPSHOT_SCHEMA);
        const target = new ChunkEncoder(history, shape);
        const copy = rangeCopy(history, shape);
        // Only on a disagreement: read both sides row by row to name the first difference.
        const explain = (chunk: ChunkRecord) => () => checkChunk(new RowReader(history, shape).range(chunk), chunk, 'copy', { expected: new RowReader(snapshot, shape).range(chunk) });
        return {
          transaction: (chunks) => history.transaction(chunks).immediate(),
          chunk: (chunk) => {
            // INSERT OR IGNORE keeps a pre-existing row; reading back then shows
            // whether it is the same row (a replay after a crash) or a conflict.
            copy(chunk);
            // The rows read back must be the recorded chunk, whatever the snapshot holds now; only when
            // they are not is the snapshot's chunk encoded too, to say which side changed.
            checkEncoded(target.encode(chunk), chunk, 'copy', null, () => {
              checkEncoded(source.encode(chunk), chunk, 'copy (snapshot read)', null);
              explain(chunk)();
            });
          },
          finish: () => undefined,
        };
      },
    });
    failed = false;
  } finally {
    try {
      history.prepare(`DETACH DATABASE ${quoteIdent(SNAPSHOT_SCHEMA)}`).run();
    } catch (error) {
      // A detach that fails after another error must not hide that error.
      if (!failed) throw error;
    }
  }
}

export async function verifyPass(ctx: PassContext, progress: ProgressStore): Promise<void> {
  await walk(ctx, 'verify', progress, { stream: true, work: readPass(ctx.history, 'verify') });
}
