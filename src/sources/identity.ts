// Source identity and generations (invariant 1 of DESIGN.md).
//
// A file source is tracked by (generation, offset) plus the file identity
// `dev:ino:birthtimeMs` and an anchor, the sha256 of the 64 bytes before the
// offset. The captured prefix [0, offset) of the current generation must be
// exactly the file's prefix; whenever that cannot be shown, capture starts a
// new generation at offset 0 and the old one stays retained:
// - the identity changed (replaced by rename, deleted and recreated);
// - the file is shorter than the offset (truncated);
// - the anchor differs (rewritten in place);
// - the head differs (rewritten in place, then grown past the old end);
// - the file was modified without growing (a same-size rewrite): the whole
//   captured prefix is compared with the retained bytes.

import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import type { CursorFacts } from '../../protocols/sources.ts';

export const ANCHOR_BYTES = 64;
export const HEAD_BYTES = 1024;

export function identityOf(stat: Pick<Stats, 'dev' | 'ino' | 'birthtimeMs'>): string {
  return `${stat.dev}:${stat.ino}:${stat.birthtimeMs}`;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The anchor for a cursor at `offset`, given the bytes that end there. */
export function anchorOf(before: Uint8Array, offset: number): string {
  if (offset === 0) return '';
  return sha256Hex(before.subarray(Math.max(0, before.length - ANCHOR_BYTES)));
}

export interface FileFacts {
  readonly identity: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** sha256 of the 64 bytes before the cursor offset ('' at offset 0 or beyond EOF). */
  readonly anchor: string;
  /** sha256 of the first min(cursor offset, HEAD_BYTES) bytes. */
  readonly head: string;
}

export type GenerationCheck =
  | { readonly verdict: 'continue' }
  | { readonly verdict: 'verify' }
  | { readonly verdict: 'new'; readonly reason: 'identity' | 'shorter' | 'anchor' | 'head' };

/** Decide whether capture continues the current generation. */
export function checkGeneration(cursor: CursorFacts, file: FileFacts): GenerationCheck {
  if (cursor.offset === 0) return { verdict: 'continue' };
  if (cursor.identity !== '' && cursor.identity !== file.identity) return { verdict: 'new', reason: 'identity' };
  if (file.size < cursor.offset) return { verdict: 'new', reason: 'shorter' };
  if (cursor.anchor !== '' && cursor.anchor !== file.anchor) return { verdict: 'new', reason: 'anchor' };
  if (cursor.head !== '' && cursor.head !== file.head) return { verdict: 'new', reason: 'head' };
  // Modified, yet no longer than when we last looked: possibly rewritten with
  // content of the same size. Only a byte comparison can tell.
  if (cursor.size === file.size && cursor.mtimeMs !== -1 && cursor.mtimeMs !== file.mtimeMs) return { verdict: 'verify' };
  return { verdict: 'continue' };
}
