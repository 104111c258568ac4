// The derived texts of a parsed chunk as they cross threads: one UTF-8
// buffer, transferred, instead of a string per segment.
//
// Why: the parser pool's results went to the history worker and, in a
// commit, on to the writer thread. Each hop cloned every segment's text: the
// history worker deserialised all of capture's derived text into its own
// heap, kept it while the batch waited for the writer (long enough for V8 to
// promote it), and serialised it again. Its only use there is a byte count
// for the batch budget. As one transferred buffer, the text is encoded once
// into it (in the parser thread), and the writer thread binds views on it to
// SQLite as text (`CAST(? AS TEXT)`): it never makes a string of it either.
//
// Invariant: SQLite stores the same bytes as before. better-sqlite3 binds a
// string as its UTF-8, which is what the buffer holds for a well-formed
// text. A text that is not well-formed UTF-16 (a lone surrogate, which a
// JSON escape can produce) has no UTF-8 form: UTF-8 would make it U+FFFD,
// where better-sqlite3 stores the surrogate's own three bytes, so such a
// text travels as a string, as every text did before
// (test/segment-texts.test.ts).

import type { ParseResult, ParsedChunk, WireSegment } from './records.ts';

/** A parse result with its texts moved into one UTF-8 buffer. */
export function packTexts(result: ParseResult): ParsedChunk {
  let total = 0;
  const sizes = result.segments.map((segment) => {
    const size = segment.text.isWellFormed() ? Buffer.byteLength(segment.text, 'utf8') : -1;
    total += Math.max(size, 0);
    return size;
  });
  // Its own ArrayBuffer (not Node's shared pool), so that it can be transferred.
  const texts = Buffer.from(new ArrayBuffer(total));
  let at = 0;
  const segments = result.segments.map((segment, index): WireSegment => {
    const { text, ...rest } = segment;
    const size = sizes[index] as number;
    if (size < 0) return { ...rest, textBytes: 0, illFormedText: text };
    if (size > 0) at += texts.write(text, at, size, 'utf8');
    return { ...rest, textBytes: size };
  });
  if (at !== total) throw new Error(`packTexts: wrote ${at} of ${total} bytes`);
  return { bytes: result.bytes, segments, texts: new Uint8Array(texts.buffer, 0, total), hints: result.hints };
}

/**
 * A segment's derived text in the writer thread: a view on its chunk's
 * `texts` (UTF-8, bound to SQLite as text without becoming a string), or the
 * string an ill-formed text travels as.
 */
export type SegmentText = string | Uint8Array;

/** Every segment's text, in segment order: views on the chunk's `texts` (no copy, no string). */
export function segmentTexts(chunk: Pick<ParsedChunk, 'segments' | 'texts'>): SegmentText[] {
  const { texts } = chunk;
  let at = 0;
  const out = chunk.segments.map((segment): SegmentText => {
    if (segment.illFormedText !== undefined) return segment.illFormedText;
    at += segment.textBytes;
    return texts.subarray(at - segment.textBytes, at);
  });
  if (at !== texts.byteLength) throw new Error(`segmentTexts: the segments name ${at} bytes of text, the chunk has ${texts.byteLength}`);
  return out;
}
