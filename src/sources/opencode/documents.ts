// Search documents of one retained slice. One row revision is one logical
// line (`line` 0 of its own source), so the slices of a revision can be told
// apart from separate rows and deduplicated by a reader.

import type { RowDocument } from '../../../protocols/rows.ts';
import type { Table } from '../../keys/opencode.ts';
import { rowText, sliceText } from './text.ts';

const EMPTY = new Uint8Array(0);

/** The parsed data of a slice that holds a whole row revision, or undefined. */
export function wholeRow(offset: number, raw: Uint8Array): unknown {
  if (offset !== 0) return undefined;
  try {
    return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Documents of the slice at `offset`. `carry` gives the unfinished token the
 * previous slice of the same revision ended with (only asked for slices after
 * the first of a row that does not fit one slice).
 */
export function sliceDocuments(table: Table, offset: number, raw: Uint8Array, carry: () => Uint8Array): RowDocument[] {
  const value = wholeRow(offset, raw);
  const text = value !== undefined ? rowText(table, value) : sliceText(raw, offset === 0 ? EMPTY : carry());
  return text === '' ? [] : [{ text, offset, line: 0 }];
}
