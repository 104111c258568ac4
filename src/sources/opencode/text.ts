// Derived text of OpenCode rows (docs/formats.md §3.7): the human and tool
// text of parts and messages, never their metadata, and the title of a
// session. Pure; used at capture and again by a reindex, so both derive the
// same documents from the same retained bytes.
//
// A row revision retained in one slice is parsed as JSON. A row larger than a
// slice is indexed slice by slice as text (JSON escapes decoded), like an
// oversized JSONL line: each slice's text begins with the unfinished token
// the previous slice ended with (`carry`, bytes), so a word cut by a slice
// boundary stays findable, and ends before an unfinished UTF-8 sequence
// (which the next slice's carry completes).

import { extractText, fragmentText } from '../../text/extract.ts';
import { utf8Boundary } from '../chunker.ts';
import type { Table } from '../../keys/opencode.ts';

const SKIP_KEYS = new Set([
  // ids and routing (OpenCode strips them from data; older rows and the JSON store keep them)
  'id', 'sessionID', 'messageID', 'parentID', 'callID', 'sessionId', 'projectID',
  // metadata
  'type', 'role', 'time', 'status', 'synthetic', 'ignored', 'snapshot', 'hash', 'mime', 'cost', 'tokens',
  'providerID', 'modelID', 'model', 'mode', 'agent', 'variant', 'finish', 'path', 'format', 'tools',
  'truncated', 'exit', 'attempt', 'auto', 'overflow', 'version', 'slug', 'directory', 'worktree', 'vcs',
  'sandboxes', 'icon', 'permission', 'revert', 'share', 'diffs',
]);

/** Part types that are metadata only (formats.md §3.7): no search text. */
const METADATA_PARTS = new Set(['step-start', 'step-finish', 'snapshot', 'retry', 'compaction', 'agent', 'subtask']);

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** Search text of one complete row (its data JSON, or the session row as JSON). */
export function rowText(table: Table, value: unknown): string {
  const data = record(value);
  if (data === null) return '';
  if (table === 'session') return typeof data.title === 'string' ? data.title.trim() : '';
  if (table === 'part' && typeof data.type === 'string' && METADATA_PARTS.has(data.type)) return '';
  return extractText(data, { skipKeys: SKIP_KEYS });
}

/** The child session a `task` tool part names (state.metadata.sessionId), or null. */
export function taskChild(value: unknown): string | null {
  const data = record(value);
  if (data === null || data.type !== 'tool' || data.tool !== 'task') return null;
  const metadata = record(record(data.state)?.metadata);
  const child = metadata?.sessionId;
  return typeof child === 'string' && /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(child) ? child : null;
}

/** Bytes that break a token: ASCII whitespace and JSON punctuation (never inside a UTF-8 sequence). */
function isBreak(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x22 || byte === 0x2c || byte === 0x3a || byte === 0x7b || byte === 0x7d || byte === 0x5b || byte === 0x5d;
}

const CARRY_BYTES = 256;

/** The unfinished token a slice ends with, as bytes (at most 256, starting on a character boundary). */
export function carryOf(slice: Uint8Array): Uint8Array {
  const start = Math.max(0, slice.length - CARRY_BYTES);
  for (let i = slice.length - 1; i >= start; i--) {
    if (isBreak(slice[i] as number)) return slice.subarray(i + 1);
  }
  let from = start;
  while (from < slice.length && ((slice[from] as number) & 0xc0) === 0x80) from++;
  return slice.subarray(from);
}

/**
 * Text of a slice of a row larger than one slice: the previous slice's carry
 * and this slice up to its last complete UTF-8 character (valid data never
 * ends inside one, so the last slice loses nothing).
 */
export function sliceText(slice: Uint8Array, carry: Uint8Array): string {
  const body = slice.subarray(0, utf8Boundary(slice));
  return fragmentText(Buffer.concat([carry, body]).toString('utf8'));
}
