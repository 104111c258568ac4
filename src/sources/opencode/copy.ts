// Copying the message or part rows of one session, in (time_updated, id)
// order, each observed revision under its own source key.
//
// A revision larger than what is left of the step's budget is continued in
// later steps (the cursor's `pending`). When the row has changed by then:
//   new time_updated   the slices already observed stay as they are; the
//                      pending copy is dropped and the row is copied again,
//                      from its start, when the ordered scan reaches its new
//                      position (later rows are never skipped over);
//   same time, other   the copy restarts at offset 0 in the next free
//   content            generation of the same key (chooseSlot).
// A row still being written (serve mode) is left until it settles, so the
// revision retained is the settled one and is always copied completely.

import { contentHash, chooseSlot, type Retained, type Slot } from './slices.ts';
import type { RowCursor } from './cursor.ts';
import { rowSource, type RowTable } from '../../keys/opencode.ts';
import type { RowData } from './queries.ts';
import { emitSlices, type SessionRef, type StepDeps, type StepOutput } from './step.ts';
import { taskChild } from './text.ts';
import { opencodeConversation } from '../../keys/opencode.ts';

const LIST_PAGE = 16;
const MAX_LISTINGS = 64;
/** Task tool parts are parsed whole to find the child they name; bigger ones are not (their slices are retained all the same). */
const TASK_PARSE_MAX = 8 * 1024 * 1024;

export interface TableProgress {
  readonly cursor: RowCursor;
  /** Nothing is left after the cursor (now). */
  readonly caughtUp: boolean;
  /** A row is still being written: look again once it settled. */
  readonly unsettled: boolean;
}

/** A `task` part names its child session: confirm the child's parent unless parent_id says otherwise. */
function confirmTaskChild(out: StepOutput, deps: StepDeps, session: SessionRef, data: Buffer): void {
  if (data.length > TASK_PARSE_MAX || data.indexOf('"task"') === -1) return;
  let value: unknown;
  try {
    value = JSON.parse(data.toString('utf8'));
  } catch {
    return;
  }
  const child = taskChild(value);
  if (child === null || child === session.id) return;
  const recorded = deps.q.parentOf(child);
  // A fork copies its parent's task parts: the child's own parent_id wins.
  if (recorded !== null && recorded !== undefined && recorded !== session.id) return;
  out.links.push({ child: opencodeConversation(child), parent: opencodeConversation(session.id) });
}

/** Copy (part of) one revision; returns the cursor after it. */
function copyRevision(out: StepOutput, deps: StepDeps, session: SessionRef, table: RowTable, id: string, row: RowData, before: RowCursor, slot: Slot | null): RowCursor {
  const data = row.data ?? Buffer.alloc(0);
  const source = rowSource(deps.tag, session.id, table, id, row.time_updated);
  const chosen = slot ?? chooseSlot(deps.retained, source, data);
  out.countRow();
  if (chosen.complete) return { at: row.time_updated, id, pending: null };
  if (chosen.offset === 0 && table === 'part') confirmTaskChild(out, deps, session, data);
  const next = emitSlices(out, { source, session, table, part: id, at: row.time_updated, data }, chosen, false);
  if (next >= data.length) return { at: row.time_updated, id, pending: null };
  return { at: before.at, id: before.id, pending: { id, time_updated: row.time_updated, offset: next, generation: chosen.generation, hash: contentHash(data) } };
}

/** Continue a revision copied across steps. */
function continuePending(out: StepOutput, deps: StepDeps, session: SessionRef, table: RowTable, cursor: RowCursor): RowCursor {
  const pending = cursor.pending;
  if (pending === null) return cursor;
  const row = deps.q.row(table, pending.id);
  const base: RowCursor = { at: cursor.at, id: cursor.id, pending: null };
  // Gone, or a newer revision: what was observed stays; the scan meets the new revision in order.
  if (row === undefined || row.time_updated !== pending.time_updated) return base;
  const data = row.data ?? Buffer.alloc(0);
  const same = pending.hash !== '' && contentHash(data) === pending.hash;
  const slot = same ? { generation: pending.generation, offset: pending.offset, complete: pending.offset >= data.length } : null;
  return copyRevision(out, deps, session, table, pending.id, row, base, slot);
}

/**
 * The rows of a listed page with their retained records looked up together:
 * a source with none (every row of a first capture) is answered here, the
 * others by `retained`, one query for the page instead of one per row.
 * Asked when the page is listed, a moment before each row's own question
 * was asked: either answer may be overtaken by a record committed since,
 * which the commit compares byte for byte with what it brings (appender.ts).
 */
function pageRetained(deps: StepDeps, session: SessionRef, table: RowTable, heads: ReadonlyArray<{ id: string; time_updated: number }>): StepDeps {
  const present = deps.retainedAmong(heads.map((head) => rowSource(deps.tag, session.id, table, head.id, head.time_updated)));
  const retained: Retained = (source, generation) => (present.has(source) ? deps.retained(source, generation) : []);
  return { ...deps, retained };
}

export function copyTable(out: StepOutput, deps: StepDeps, session: SessionRef, table: RowTable, start: RowCursor): TableProgress {
  let cursor = continuePending(out, deps, session, table, start);
  if (cursor.pending !== null) return { cursor, caughtUp: false, unsettled: false };
  // A row rewritten between listing and reading is listed again, a bounded number of times per step.
  for (let listing = 0; listing < MAX_LISTINGS; listing++) {
    if (out.exhausted) return { cursor, caughtUp: false, unsettled: false };
    const heads = deps.q.rowsAfter(table, session.id, cursor, LIST_PAGE);
    if (heads.length === 0) return { cursor, caughtUp: true, unsettled: false };
    const listed = pageRetained(deps, session, table, heads);
    for (const head of heads) {
      if (deps.settledBefore !== null && head.time_updated > deps.settledBefore) return { cursor, caughtUp: false, unsettled: true };
      if (out.exhausted) return { cursor, caughtUp: false, unsettled: false };
      const row = deps.q.row(table, head.id);
      if (row === undefined) {
        cursor = { at: head.time_updated, id: head.id, pending: null }; // deleted since the listing
        continue;
      }
      if (row.time_updated !== head.time_updated) break; // changed since the listing: list again
      cursor = copyRevision(out, listed, session, table, head.id, row, cursor, null);
      if (cursor.pending !== null) return { cursor, caughtUp: false, unsettled: false };
    }
  }
  return { cursor, caughtUp: false, unsettled: false };
}
