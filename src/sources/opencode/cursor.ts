// Row cursors, stored in history_cursors with the records they cover.
//
// `at`/`id` is the (time_updated, id) of the last row copied completely; the
// next row is the smallest (time_updated, id) after it. `pending` is a row
// revision whose slices are being copied across batches: the next batch
// continues at `offset` in `generation` if the row still has that revision
// (same time_updated, same content hash). The field names follow the earlier
// implementation's cursor ({at, id, pending: {id, time_updated, offset}}), so
// a cursor carried over by the legacy migration is understood; what it lacks
// (generation, hash) is recovered by comparing with the retained slices.

export interface Pending {
  readonly id: string;
  readonly time_updated: number;
  readonly offset: number;
  readonly generation: number;
  /** sha256 (hex, 32 chars) of the row data at the start of the copy; '' when unknown. */
  readonly hash: string;
}

export interface RowCursor {
  readonly at: number;
  readonly id: string;
  readonly pending: Pending | null;
}

/** Before every row: OpenCode times are epoch milliseconds, never negative. */
export const START: RowCursor = { at: -1, id: '', pending: null };

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function parsePending(value: unknown): Pending | null {
  if (value === null || typeof value !== 'object') return null;
  const p = value as Record<string, unknown>;
  const timeUpdated = num(p.time_updated);
  const offset = num(p.offset);
  if (typeof p.id !== 'string' || timeUpdated === null || offset === null) return null;
  return { id: p.id, time_updated: timeUpdated, offset, generation: num(p.generation) ?? 0, hash: typeof p.hash === 'string' ? p.hash : '' };
}

/** A stored cursor; anything unreadable starts from the beginning (the retained slices keep that idempotent). */
export function parseCursor(text: string | undefined): RowCursor {
  if (text === undefined) return START;
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    const at = num(value.at);
    if (at === null || typeof value.id !== 'string') return START;
    return { at, id: value.id, pending: parsePending(value.pending) };
  } catch {
    return START;
  }
}

export function formatCursor(cursor: RowCursor): string {
  const base = { at: cursor.at, id: cursor.id };
  return JSON.stringify(cursor.pending === null ? base : { ...base, pending: cursor.pending });
}

/** (time_updated, id) of a row, compared with a cursor position. */
export function isAfter(at: number, id: string, cursor: { at: number; id: string }): boolean {
  return at > cursor.at || (at === cursor.at && id > cursor.id);
}
