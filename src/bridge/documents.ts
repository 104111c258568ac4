// Documents derived again from retained bridge rows (reindex): the same
// document capture wrote, from the version's bytes alone. A version larger
// than one chunk is read whole from its first chunk's generation; its other
// chunks carry no document.

import type { RetainedRow } from '../ingest/provider.ts';
import type { RowDocument } from '../../protocols/rows.ts';
import { fragmentText } from '../text/extract.ts';
import { decisionDocument, isDecisionRow } from './decisions.ts';
import { jobDocument, snapshotOf } from './jobs.ts';
import { isMessageRow, messageDocument } from './messages.ts';
import { ROW_CHUNK_BYTES } from './records.ts';

export type RetainedReader = (source: string, generation: number) => Iterable<{ offset: number; raw: Uint8Array }>;

function wholeVersion(row: RetainedRow, retained: RetainedReader): Uint8Array {
  if (row.raw.length < ROW_CHUNK_BYTES) return row.raw;
  const parts: Uint8Array[] = [];
  for (const chunk of retained(row.source, row.generation)) parts.push(chunk.raw);
  return Buffer.concat(parts);
}

export function bridgeDocuments(row: RetainedRow, retained: RetainedReader): RowDocument[] {
  if (row.offset !== 0) return [];
  const raw = wholeVersion(row, retained);
  const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
  let value: unknown = null;
  try {
    value = JSON.parse(text);
  } catch {
    value = null;
  }
  if (row.source.startsWith('messages:') && isMessageRow(value)) {
    const prefix = `messages:${value.id}:`;
    return [messageDocument(value, row.source.startsWith(prefix) ? row.source.slice(prefix.length) : value.recipient)];
  }
  if (row.source.startsWith('decisions:') && isDecisionRow(value)) return [decisionDocument(value)];
  if (row.source.startsWith('job-snapshot:')) {
    const snapshot = snapshotOf(value, '');
    if (snapshot !== null) return [jobDocument(snapshot)];
  }
  // Bytes that are not a whole row (an unfinished legacy copy): searchable as they are.
  return [{ text: fragmentText(text), offset: 0, line: 0 }];
}
