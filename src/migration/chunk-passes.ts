// Passes 2-4 walk the chunks the snapshot pass recorded, table by table, in
// the same order and with the same boundaries:
//   snapshot-verify  re-read every chunk from the snapshot (reopened read-only)
//   copy             read from the snapshot, check, insert into history.db with
//                    the original rowids, read back and check, commit
//   verify           re-read every chunk from history.db
// Each chunk is checked against its recorded count and bh-row-v1 digest, and
// its checkpoint is committed after it. The two read-only passes also fold
// every row into a table-wide bh-row-v1 stream digest whose state is saved
// with each checkpoint, so a resumed pass continues the same digest. After a
// table's last chunk, a row beyond it (or any row in a table that had none)
// is a disagreement: nothing may sit in the copied range but the copy.

import { HistoryError } from '../../protocols/errors.ts';
import type { Db } from '../store/open.ts';
import type { PassContext } from './context.ts';
import { checkChunk, step } from './context.ts';
import { columnShapes, sameShape } from './legacy-tables.ts';
import { shapeOf } from './plan.ts';
import type { ChunkRecord, PassState, ProgressStore, TableState } from './progress-db.ts';
import { chunkDigest } from './row-hash.ts';
import { RowReader, RowWriter } from './rows.ts';
import { Sha256State } from './sha256-state.ts';

type ChunkPass = 'snapshot-verify' | 'copy' | 'verify';

interface TableWork {
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

async function walk(ctx: PassContext, pass: ChunkPass, progress: ProgressStore, options: { stream: boolean; work: (t: TableState) => TableWork }): Promise<void> {
  const tables = progress.tables();
  ctx.onPass(pass, tables);
  for (const t of tables) {
    let state: PassState = t.passes[pass];
    if (state.done) continue;
    const work = options.work(t);
    const stream = options.stream ? new Sha256State(state.hash) : null;
    for (;;) {
      const chunk = progress.nextChunk(t.name, t.generation, state.end);
      if (chunk === undefined) {
        work.finish(state.end);
        const finished = { ...state, done: true };
        progress.db.transaction(() => progress.savePass(t.name, pass, finished)).immediate();
        break;
      }
      await step(ctx, { kind: pass, table: t.name, pinned: false }, () => {
        work.chunk(chunk, stream);
        const next: PassState = { end: chunk.end, done: false, rows: state.rows + chunk.rows, hash: stream?.save() ?? null };
        progress.db.transaction(() => progress.savePass(t.name, pass, next)).immediate();
        state = next;
        return { rows: chunk.rows, bytes: chunk.bytes };
      });
    }
  }
}

/** Read `chunk` from `reader` and check it, feeding the stream digest. */
function readChecked(reader: RowReader, chunk: ChunkRecord, stream: Sha256State | null, where: string): void {
  const rows = reader.range(chunk);
  checkChunk(rows, chunk, where, { digest: chunkDigest(rows, stream === null ? [] : [stream]) });
}

export async function snapshotVerifyPass(ctx: PassContext, progress: ProgressStore, snapshot: Db): Promise<void> {
  await walk(ctx, 'snapshot-verify', progress, {
    stream: true,
    work: (t) => {
      const reader = new RowReader(snapshot, shapeOf(t));
      return {
        chunk: (chunk, stream) => readChecked(reader, chunk, stream, 'snapshot-verify'),
        finish: (end) => noRowAfter(reader, end, 'snapshot-verify'),
      };
    },
  });
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

export async function copyPass(ctx: PassContext, progress: ProgressStore, snapshot: Db): Promise<void> {
  checkTargetShapes(progress, snapshot, ctx.history);
  await walk(ctx, 'copy', progress, {
    stream: false,
    work: (t) => {
      const shape = shapeOf(t);
      const from = new RowReader(snapshot, shape);
      const back = new RowReader(ctx.history, shape);
      const into = new RowWriter(ctx.history, shape);
      return {
        chunk: (chunk) => {
          const rows = from.range(chunk);
          checkChunk(rows, chunk, 'copy (snapshot read)');
          // INSERT OR IGNORE keeps a pre-existing row; reading back then shows
          // whether it is the same row (a replay after a crash) or a conflict.
          ctx.history.transaction(() => {
            into.write(rows);
            checkChunk(back.range(chunk), chunk, 'copy', { expected: rows });
          }).immediate();
        },
        finish: () => undefined,
      };
    },
  });
}

export async function verifyPass(ctx: PassContext, progress: ProgressStore): Promise<void> {
  await walk(ctx, 'verify', progress, {
    stream: true,
    work: (t) => {
      const reader = new RowReader(ctx.history, shapeOf(t));
      return {
        chunk: (chunk, stream) => readChecked(reader, chunk, stream, 'verify'),
        finish: (end) => noRowAfter(reader, end, 'verify'),
      };
    },
  });
}
