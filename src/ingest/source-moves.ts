// Which source a newly found path belongs to. A file keeps its identity
// (dev:ino:birthtime) when it is renamed, so a path this process has not seen
// yet is, in this order:
// 1. the source that is already registered at this path with this identity;
// 2. a source that captured this identity and whose own path no longer holds
//    it: the file moved (Codex archiving a rollout, a user reorganising) and
//    is captured on as the same source, if the file still begins with the
//    bytes that source captured (inode numbers are reused after a delete);
//    a source whose path still holds the identity is a hard link: a second
//    name of one file is a second source, as it always was;
// 3. the source registered at this path (the file was replaced: the lane
//    decides on a new generation, after SourceTable's deferral);
// 4. a new source, whose id is the path unless a source that moved away from
//    this path already uses it.
// The move itself is recorded by the history actor before anything is read
// from the new path, so a process killed right after it finds the source at
// its new path next time (rule 1 or 3).

import type { CursorFacts } from '../../protocols/sources.ts';
import { ANCHOR_BYTES, HEAD_BYTES, anchorOf, sha256Hex } from '../sources/identity.ts';
import { readAt } from './read-at.ts';
import { openSourceFile } from '../os/source-file.ts';
import type { Observation, SourceTable } from './source-table.ts';

export type Resolution =
  | { readonly kind: 'known' | 'replaced' | 'new'; readonly id: string }
  | { readonly kind: 'moved'; readonly id: string; readonly from: string };

export interface ResolvePorts {
  readonly observe: (path: string) => Promise<Observation | null>;
  /** Whether the file at `path` begins with the bytes a cursor describes (size, head and anchor). */
  readonly continues: (path: string, cursor: CursorFacts) => Promise<boolean>;
}

export async function resolveSource(table: SourceTable, path: string, wantedId: string, ports: ResolvePorts): Promise<Resolution> {
  const seen = await ports.observe(path);
  if (seen !== null) {
    const candidates = table.sourcesWithIdentity(seen.identity);
    const here = candidates.find((id) => table.pathOf(id) === path);
    if (here !== undefined) return { kind: 'known', id: here };
    // The source that captured the most of this file first.
    const ordered = candidates
      .map((id) => ({ id, cursor: table.cursorOf(id) }))
      .sort((a, b) => (b.cursor?.offset ?? 0) - (a.cursor?.offset ?? 0) || (a.id < b.id ? -1 : 1));
    for (const { id, cursor } of ordered) {
      const from = table.pathOf(id);
      if (from === undefined || cursor === undefined) continue;
      if (cursor.identity !== seen.identity) continue; // a generation ago: that file was replaced, not moved
      const atOld = await ports.observe(from);
      if (atOld !== null && atOld.identity === seen.identity) continue; // a hard link
      if (await ports.continues(path, cursor)) return { kind: 'moved', id, from };
    }
  }
  const registered = table.sourceAtPath(path);
  if (registered !== undefined) return { kind: 'replaced', id: registered };
  return { kind: 'new', id: table.freeId(wantedId) };
}

/** Whether the file at `path` is at least `cursor.offset` long and has the head and anchor the cursor recorded. */
export async function continuesCursor(path: string, cursor: CursorFacts): Promise<boolean> {
  if (cursor.offset === 0) return true;
  const handle = await openSourceFile(path).catch(() => null);
  if (handle === null) return false;
  try {
    const stat = await handle.stat();
    if (stat.size < cursor.offset) return false;
    if (cursor.head !== '') {
      const head = await readAt(handle, 0, Math.min(cursor.offset, HEAD_BYTES));
      if (sha256Hex(head) !== cursor.head) return false;
    }
    if (cursor.anchor !== '') {
      const length = Math.min(cursor.offset, ANCHOR_BYTES);
      const before = await readAt(handle, cursor.offset - length, length);
      if (anchorOf(before, cursor.offset) !== cursor.anchor) return false;
    }
    return true;
  } finally {
    await handle.close();
  }
}
