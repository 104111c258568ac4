// `conversation` shows each captured line whole. A line caught half-written,
// or longer than a chunk, is retained as several records; printed record by
// record it would show JSON fragments. The joiner holds the unfinished end of
// a record and prints it with the record that completes the line (same
// source and generation, the next offset). Bounded: a line longer than
// WHOLE_LINE_MAX is printed in its pieces.

import { WHOLE_LINE_MAX } from '../../protocols/records.ts';

interface Pending {
  readonly source: string;
  readonly generation: number;
  readonly end: number;
  readonly bytes: Buffer;
}

export interface RecordBytes {
  readonly source: string;
  readonly generation: number;
  readonly offset: number;
  readonly raw: Buffer;
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

export class LineJoiner {
  private pending: Pending | null = null;

  /** The text to print under this record: its lines, the first one completed with the held start, without an unfinished end. */
  take(record: RecordBytes): string {
    let bytes = record.raw;
    const held = this.pending;
    if (held !== null && held.source === record.source && held.generation === record.generation && held.end === record.offset) {
      bytes = Buffer.concat([held.bytes, bytes]);
      this.pending = null;
    }
    if (bytes.length === 0 || bytes[bytes.length - 1] === 10 || bytes.length > WHOLE_LINE_MAX) return decoder.decode(bytes);
    const newline = bytes.lastIndexOf(10);
    const flush = this.flush();
    this.pending = { source: record.source, generation: record.generation, end: record.offset + record.raw.length, bytes: bytes.subarray(newline + 1) };
    const complete = decoder.decode(bytes.subarray(0, newline + 1));
    return `${flush ?? ''}${complete}(the line goes on in a later record)\n`;
  }

  /** A held line no later record completed: it was still being written when captured, or (`more`) it goes on in the next page. */
  flush(more = false): string | null {
    const held = this.pending;
    this.pending = null;
    if (held === null) return null;
    return `${decoder.decode(held.bytes)}\n${more ? '(the line goes on in the next page)' : '(unfinished line: the rest was not written when it was captured)'}\n`;
  }
}
