// Where a chunk ends. Invariants, for a read of at most LIMITS.chunkBytes
// starting at the source cursor:
// - a chunk that contains a newline ends right after its last newline;
// - a chunk without one (a line longer than a chunk) ends on a UTF-8
//   character boundary, never inside a multi-byte sequence;
// - an unfinished last line at end of file is taken only once the file has
//   settled (it may be a write in progress), and then whole, even if it ends
//   inside a UTF-8 sequence: those are the file's bytes;
// - a one-document file (DOCUMENT_FORMATS) is taken whole at a settled end;
// - with a hold-back (HOLD_BACK_FORMATS), a chunk that does not reach the end
//   of the file leaves its last `holdBack` bytes to the next read, so the
//   file's final bytes always arrive together in its final chunk.

/** Length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence. */
export function utf8Boundary(bytes: Uint8Array): number {
  const n = bytes.length;
  // Walk back over at most 3 continuation bytes to the start of the last sequence.
  let i = n - 1;
  let back = 0;
  while (i >= 0 && back < 3 && ((bytes[i] as number) & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return n;
  const lead = bytes[i] as number;
  let need: number;
  if (lead < 0x80) need = 1;
  else if ((lead & 0xe0) === 0xc0) need = 2;
  else if ((lead & 0xf0) === 0xe0) need = 3;
  else if ((lead & 0xf8) === 0xf0) need = 4;
  else return n; // invalid lead byte: nothing to protect
  return n - i >= need ? n : i === 0 ? n : i;
}

export interface CutInput {
  /** Bytes read at the cursor (at most one chunk). */
  readonly bytes: Uint8Array;
  /** The read reached the end of the file. */
  readonly atEof: boolean;
  /** The file has not changed for LIMITS.settleMs (or the caller does not wait). */
  readonly settled: boolean;
  /**
   * The file is one document (a JSON file, not JSONL): its end is taken with
   * the rest once settled, so a document that fits one chunk is read whole.
   */
  readonly document?: boolean;
  /** Bytes a chunk short of the end of the file leaves for the next read (0: none). */
  readonly holdBack?: number;
}

/** How many of the bytes form the next chunk; 0 means wait for more. */
export function cutChunk({ bytes, atEof, settled, document, holdBack = 0 }: CutInput): number {
  if (bytes.length === 0) return 0;
  if (document === true && atEof) return settled ? bytes.length : 0;
  if (!atEof && holdBack > 0 && bytes.length > holdBack) return cutChunk({ bytes: bytes.subarray(0, bytes.length - holdBack), atEof, settled, document });
  const lastNewline = bytes.lastIndexOf(10);
  if (lastNewline !== -1) return lastNewline + 1;
  if (!atEof) return utf8Boundary(bytes);
  return settled ? bytes.length : 0;
}

/**
 * Whether a retained chunk was cut by the chunk limit (a line longer than a
 * chunk, whose next bytes were already on disk) rather than after a newline
 * or at the end of the file (a line caught half-written): cutChunk ends a
 * chunk without a newline short of the end of the file only on a UTF-8
 * boundary of a full read, at most 3 bytes short of it. Reindex derives
 * ParseTask.continues from this, as capture knew it.
 */
export function cutByLimit(bytes: Uint8Array, chunkBytes: number, holdBack = 0): boolean {
  if (bytes.length === 0 || bytes[bytes.length - 1] === 10 || bytes.indexOf(10) !== -1) return false;
  return bytes.length >= chunkBytes - (holdBack > 0 ? holdBack : 0) - 3;
}
