// A row's data retained in slices of at most 64 KiB (SLICE_BYTES), each a
// record at its byte offset: concatenating the slices of one revision gives
// the exact data. Slices are cut at fixed 64 KiB offsets, as the earlier
// implementation cut them, so a re-observed revision produces the same
// records (and a record carried over by the legacy migration is reused).
//
// Which generation a revision goes to is decided against what is retained:
// the first generation whose slices agree byte for byte with the data is
// continued after its last slice (or is complete); a generation holding
// different bytes under the same key (the row changed without a new
// time_updated, or an earlier writer cut it differently) is left as it is and
// the next generation is used. So a capture never conflicts with a retained
// record, and no retained record is ever rewritten.

import { createHash } from 'node:crypto';

export const SLICE_BYTES = 64 * 1024;

export type Retained = (source: string, generation: number) => Iterable<{ offset: number; raw: Uint8Array }>;

export interface Slot {
  readonly generation: number;
  /** Where copying continues: 0 for a fresh generation, the end of the agreeing slices otherwise. */
  readonly offset: number;
  /** Every byte of the data is retained in this generation already. */
  readonly complete: boolean;
}

function agreesWith(data: Uint8Array, offset: number, raw: Uint8Array): boolean {
  if (offset + raw.length > data.length) return false;
  return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).equals(data.subarray(offset, offset + raw.length));
}

export function chooseSlot(retained: Retained, source: string, data: Uint8Array, firstGeneration = 0): Slot {
  for (let generation = firstGeneration; ; generation++) {
    let expected = 0;
    let any = false;
    let agrees = true;
    for (const chunk of retained(source, generation)) {
      any = true;
      if (chunk.offset !== expected || !agreesWith(data, chunk.offset, chunk.raw)) {
        agrees = false;
        break;
      }
      expected += chunk.raw.length;
    }
    if (!any) return { generation, offset: 0, complete: false };
    if (agrees) return { generation, offset: expected, complete: expected === data.length };
  }
}

/** The slice starting at `offset` (an empty row is one empty slice). */
export function sliceAt(data: Uint8Array, offset: number): Uint8Array {
  return data.subarray(offset, Math.min(data.length, offset + SLICE_BYTES));
}

export function contentHash(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 32);
}
