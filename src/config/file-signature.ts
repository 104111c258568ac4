// Small files consulted before every batch (config.json, the reindex request)
// are re-read only when their signature changes: one stat per batch, and no
// exception when the file is absent (the usual case), which costs more than
// the stat itself.

import { statSync } from 'node:fs';

/** size:mtime:inode of the file at `path`, or null when it is absent or cannot be examined. */
export function fileSignature(path: string): string | null {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st === undefined ? null : `${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch {
    return null;
  }
}

/** dev:ino of the file at `path` (which file it is, not what it holds), or null when absent. */
export function fileIdentity(path: string): string | null {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st === undefined ? null : `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}
