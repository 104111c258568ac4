// Checks that a file still begins with what was captured from it, made when a
// lane opens a changed file: a few random windows of the captured prefix
// (cheap, so an edit in the middle is often caught at once; the scrubber
// catches the rest), and the whole prefix when a file changed without
// growing (a same-size rewrite).

import type { FileHandle } from 'node:fs/promises';
import type { LineFormat } from '../../protocols/records.ts';
import { readAt } from './read-at.ts';
import { ALTERED_FORMATS, retainedForm } from './retained-form.ts';
import type { LaneDeps, LaneSource } from './lane.ts';

/**
 * Whether `windows` random windows of the captured prefix [0, cursor.offset)
 * still hold the retained bytes. Cheap (a few KiB read from the file and the
 * store) and run each time a changed file is opened, so an edit in the middle
 * of a file is often caught at once; the scrubber catches the rest.
 */
export async function spotChecksPass(handle: FileHandle, source: LaneSource, deps: LaneDeps): Promise<boolean> {
  const { offset: end, generation } = source.cursor;
  const random = deps.random ?? Math.random;
  for (let i = 0; i < deps.spotChecks; i++) {
    const at = Math.floor(random() * end);
    const span = deps.spanAt(source.id, generation, at);
    if (span === undefined) continue; // no record there (a legacy gap): nothing to compare
    // An altered format is compared over its whole record, in retained form (retained-form.ts).
    const whole = ALTERED_FORMATS.has(source.format);
    const from = whole ? span.offset : Math.max(span.offset, at - (deps.spotCheckBytes >> 1));
    const to = whole ? span.offset + span.raw.length : Math.min(span.offset + span.raw.length, from + deps.spotCheckBytes, end);
    const now = retainedForm(source.format, await readAt(handle, from, to - from));
    const kept = span.raw.subarray(from - span.offset, to - span.offset);
    if (Buffer.compare(Buffer.from(now.buffer, now.byteOffset, now.length), Buffer.from(kept.buffer, kept.byteOffset, kept.length)) !== 0) return false;
  }
  return true;
}

/** Whether the file's first `end` bytes are, record by record, what was retained of them. */
export async function sameBytes(handle: FileHandle, format: LineFormat, chunks: Iterable<{ offset: number; raw: Uint8Array }>, end: number): Promise<boolean> {
  let expected = 0;
  for (const { offset, raw } of chunks) {
    if (offset !== expected) return false;
    const now = retainedForm(format, await readAt(handle, offset, raw.length));
    if (Buffer.compare(Buffer.from(now), Buffer.from(raw)) !== 0) return false;
    expected = offset + raw.length;
  }
  return expected === end;
}

