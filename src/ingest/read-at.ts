// Positional reads of source files that return short only at end of file.

import type { FileHandle } from 'node:fs/promises';

/** Up to `length` bytes at `position`; fewer only where the file ends. */
export async function readAt(handle: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}
