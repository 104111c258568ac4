// The start of an unfinished line, kept while a file is read chunk by chunk
// (capture and reindex alike), so the line is indexed whole once it
// completes (ParseTask.lineHead).

import { WHOLE_LINE_MAX } from '../../protocols/records.ts';

/** The unfinished line's bytes after a chunk that ends inside it (a copy), or null when longer than WHOLE_LINE_MAX or its start is unknown. */
export function nextLineHead(previous: Uint8Array | null, startsMidLine: boolean, bytes: Uint8Array): Uint8Array | null {
  const newline = bytes.lastIndexOf(10);
  if (newline !== -1) return bytes.length - newline - 1 <= WHOLE_LINE_MAX ? bytes.slice(newline + 1) : null;
  if (startsMidLine && previous === null) return null;
  const length = (startsMidLine ? (previous as Uint8Array).length : 0) + bytes.length;
  if (length > WHOLE_LINE_MAX) return null;
  return startsMidLine ? Buffer.concat([previous as Uint8Array, bytes]) : bytes.slice();
}

