// Row-shaped bridge records (envelopes, decisions, archive rows, job
// snapshots): one logical row is one source key and generation, its bytes cut
// into 64 KiB records at fixed offsets as the 0.29.17 ingestor cut them, with
// the row's search document on its first record.

import type { RowDocument, RowRecord } from '../../protocols/rows.ts';
import type { ConversationSeed } from '../../protocols/sources.ts';

export const ROW_CHUNK_BYTES = 64 * 1024;

export interface RowVersion {
  readonly source: string;
  readonly generation: number;
  readonly conversation: ConversationSeed;
  readonly project: string | null;
  readonly at: number;
  readonly part: string | null;
  readonly raw: Uint8Array;
  readonly document: RowDocument | null;
}

export function rowRecords(version: RowVersion): RowRecord[] {
  const records: RowRecord[] = [];
  const { raw } = version;
  for (let offset = 0; offset === 0 || offset < raw.length; offset += ROW_CHUNK_BYTES) {
    records.push({
      source: version.source,
      generation: version.generation,
      offset,
      conversation: version.conversation,
      project: version.project,
      at: version.at,
      raw: raw.subarray(offset, Math.min(raw.length, offset + ROW_CHUNK_BYTES)),
      part: version.part,
      documents: offset === 0 && version.document !== null ? [version.document] : [],
    });
  }
  return records;
}

/** Derived text bytes of a version (for the batch's 512 KiB body budget). */
export function bodyBytes(version: RowVersion): number {
  return version.document === null ? 0 : Buffer.byteLength(version.document.text);
}
