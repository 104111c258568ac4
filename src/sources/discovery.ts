// Streamed discovery: walks the source roots a bounded number of directory
// entries per step (LIMITS.discoveryStepEntries), with no limit on depth or
// on the total, so a huge tree is covered in many small steps instead of one
// long scan. Symbolic links are never followed: a link below a root is
// refused and counted, so nothing outside the roots is read.

import type { Dir } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DiscoveredFile, FileSourceModule } from './source-module.ts';

const UNREADABLE_KEPT = 5;

export interface DiscoveryRoot {
  readonly root: string;
  readonly module: FileSourceModule;
}

export interface Found extends DiscoveredFile {
  readonly module: FileSourceModule;
}

interface PendingDir {
  readonly path: string;
  readonly relative: readonly string[];
  readonly module: FileSourceModule;
}

export interface StepResult {
  readonly files: Found[];
  /** The walk reached its end with this step; the next step starts a new pass. */
  readonly passComplete: boolean;
}

export class DiscoveryWalker {
  private stack: PendingDir[] = [];
  private current: { dir: Dir; pending: PendingDir } | null = null;
  private passStarted = false;
  /** Symbolic links seen and not followed, in the last pass. */
  refusedLinks = 0;
  /** Directories that exist but could not be listed (EACCES, EIO ...), in the last pass: their files are not found. */
  unreadableDirs = 0;
  /** The first few of them, with the reason. */
  readonly unreadable: Array<{ readonly path: string; readonly code: string }> = [];
  passes = 0;

  constructor(
    private readonly roots: readonly DiscoveryRoot[],
    private readonly stepEntries: number,
  ) {}

  private startPass(): void {
    this.stack = this.roots.map((r) => ({ path: r.root, relative: [], module: r.module })).reverse();
    this.passStarted = true;
    this.refusedLinks = 0;
    this.unreadableDirs = 0;
    this.unreadable.length = 0;
  }

  private cannotRead(path: string, error: unknown): void {
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    if (code === 'ENOENT' || code === 'ENOTDIR') return; // gone since it was listed: nothing to find there
    this.unreadableDirs++;
    if (this.unreadable.length < UNREADABLE_KEPT) this.unreadable.push({ path, code });
  }

  /** Read at most `stepEntries` directory entries. */
  async step(): Promise<StepResult> {
    if (!this.passStarted) this.startPass();
    const files: Found[] = [];
    let entries = 0;
    while (entries < this.stepEntries) {
      if (this.current === null) {
        const next = this.stack.pop();
        if (next === undefined) {
          this.passStarted = false;
          this.passes++;
          return { files, passComplete: true };
        }
        try {
          this.current = { dir: await opendir(next.path, { bufferSize: this.stepEntries }), pending: next };
        } catch (error) {
          this.cannotRead(next.path, error);
          continue;
        }
      }
      const { dir, pending } = this.current;
      let entry;
      try {
        entry = await dir.read();
      } catch (error) {
        this.cannotRead(pending.path, error);
        entry = null;
      }
      if (entry === null) {
        await dir.close().catch(() => undefined);
        this.current = null;
        continue;
      }
      entries++;
      const path = join(pending.path, entry.name);
      const relative = [...pending.relative, entry.name];
      if (entry.isSymbolicLink()) this.refusedLinks++;
      else if (entry.isDirectory()) this.stack.push({ path, relative, module: pending.module });
      else if (entry.isFile()) files.push({ path, relative, module: pending.module });
    }
    return { files, passComplete: false };
  }

  async close(): Promise<void> {
    await this.current?.dir.close().catch(() => undefined);
    this.current = null;
  }
}
