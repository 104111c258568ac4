// The cross-process writer lock: `<history.db>.lock` holds the owner's pid, a
// random nonce and the process start time. Invariants:
// - at most one live process holds it (exclusive create);
// - a live owner is never expired, however old the lock;
// - a dead owner (no such pid, or the pid now belongs to a process started at
//   another time) is recovered through a separate exclusive `.recovery` file,
//   so two processes cannot both take over the same dead lock;
// - release removes the file only while it still names us.

import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { HistoryError } from '../../protocols/errors.ts';

export interface LockOwner {
  readonly pid: number;
  readonly nonce: string;
  /** Process start time from /proc (Linux), '' where unknown. */
  readonly start: string;
  readonly since: number;
}

function processStart(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime) counts from after the parenthesised command name.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? '';
  } catch {
    return '';
  }
}

export function ownerAlive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (owner.start === '') return true;
  const now = processStart(owner.pid);
  return now === '' || now === owner.start;
}

function readOwner(path: string): { text: string; owner: LockOwner | null } | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.nonce === 'string') {
      return { text, owner: { pid: value.pid, nonce: value.nonce, start: value.start ?? '', since: value.since ?? 0 } };
    }
  } catch {
    // A torn or foreign file: treated as an unowned lock below.
  }
  return { text, owner: null };
}

function tryCreate(path: string, text: string): boolean {
  try {
    writeFileSync(path, text, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Remove `path` only if it still holds exactly `text`. Lock files are not retained data. */
function removeIfUnchanged(path: string, text: string): void {
  const current = readOwner(path);
  if (current !== null && current.text === text) unlinkSync(path);
}

export type LockState =
  | { readonly state: 'absent' }
  | { readonly state: 'live'; readonly owner: LockOwner }
  /** Left by a process that is gone: the next writer recovers it. */
  | { readonly state: 'stale'; readonly owner: LockOwner }
  /** Not a lock this code wrote (torn or foreign content): also recovered by the next writer. */
  | { readonly state: 'unreadable'; readonly text: string };

/** What the lock file at `path` says, without changing it (doctor, health). */
export function inspectLock(path: string): LockState {
  const current = readOwner(path);
  if (current === null) return { state: 'absent' };
  if (current.owner === null) return { state: 'unreadable', text: current.text.slice(0, 200) };
  return ownerAlive(current.owner) ? { state: 'live', owner: current.owner } : { state: 'stale', owner: current.owner };
}

export class WriterLock {
  readonly path: string;
  readonly owner: LockOwner;
  private readonly text: string;
  private held = false;

  private constructor(path: string) {
    this.path = path;
    this.owner = { pid: process.pid, nonce: randomUUID(), start: processStart(process.pid), since: Date.now() };
    this.text = JSON.stringify(this.owner);
  }

  /** Take the lock or throw WRITER_LOCKED naming the live owner. */
  static acquire(path: string): WriterLock {
    const lock = new WriterLock(path);
    for (let attempt = 0; attempt < 5; attempt++) {
      if (tryCreate(path, lock.text)) {
        lock.held = true;
        return lock;
      }
      const current = readOwner(path);
      if (current === null) continue; // released between our create and read
      if (current.owner !== null && ownerAlive(current.owner)) {
        throw new HistoryError('WRITER_LOCKED', `history.db is being written by another process (pid ${current.owner.pid})`, { path });
      }
      lock.recover(current.text);
      if (lock.held) return lock;
    }
    throw new HistoryError('WRITER_LOCKED', 'could not take the history writer lock', { path });
  }

  /** Who holds the lock now, if anybody alive. */
  static liveOwner(path: string): LockOwner | null {
    const lock = inspectLock(path);
    return lock.state === 'live' ? lock.owner : null;
  }

  private recover(deadText: string): void {
    const recovery = `${this.path}.recovery`;
    if (!tryCreate(recovery, this.text)) {
      const other = readOwner(recovery);
      if (other?.owner && ownerAlive(other.owner)) return; // someone else is recovering
      if (other !== null) removeIfUnchanged(recovery, other.text);
      if (!tryCreate(recovery, this.text)) return;
    }
    try {
      const current = readOwner(this.path);
      if (current !== null && current.text !== deadText) return; // changed under us: start over
      const temp = `${this.path}.${this.owner.nonce}`;
      writeFileSync(temp, this.text, { mode: 0o600 });
      renameSync(temp, this.path);
      this.held = readOwner(this.path)?.text === this.text;
    } finally {
      removeIfUnchanged(recovery, this.text);
    }
  }

  get isHeld(): boolean {
    return this.held && readOwner(this.path)?.text === this.text;
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    removeIfUnchanged(this.path, this.text);
  }
}
