// One-document JSON files (run metadata, approval requests): a file read in
// one chunk is parsed and indexed as a whole; a larger one is indexed chunk
// by chunk as text, every chunk continuing the file's one logical line.

import type { ParseResult, ParseTask, Segment } from '../../../protocols/records.ts';
import { fragmentText } from '../../text/extract.ts';

export interface DocumentFacts {
  readonly text: string;
  readonly at: number | null;
  readonly cwd: string | null;
}

function objectOf(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

export function documentChunk(task: ParseTask, facts: (doc: Record<string, unknown>) => DocumentFacts): ParseResult {
  const bytes = task.bytes;
  const none = { cwd: null, parent: null, links: [], malformed: 0 };
  if (bytes.length === 0) return { bytes, segments: [], hints: none };
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  let doc: Record<string, unknown> | null = null;
  if (task.offset === 0) {
    try {
      doc = objectOf(JSON.parse(text));
    } catch {
      doc = null; // larger than one chunk, or not JSON: indexed as text
    }
  }
  const segment: Omit<Segment, 'text' | 'at'> = { offset: task.offset, length: bytes.length, continuation: task.offset > 0, route: null, complete: false };
  if (doc === null) return { bytes, segments: [{ ...segment, text: fragmentText(task.carry + text), at: null }], hints: none };
  const found = facts(doc);
  return { bytes, segments: [{ ...segment, text: found.text, at: found.at }], hints: { ...none, cwd: found.cwd } };
}
