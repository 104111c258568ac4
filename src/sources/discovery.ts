// Streamed discovery: walks the source roots a bounded number of directory
// entries per step (LIMITS.discoveryStepEntries), with no limit on depth or
// on the total, so a huge tree is covered in many small steps instead of one
// long scan. Symbolic links are never followed: a link below a root is
// refused and counted, so nothing outside the roots is read. Entry names are
// read as bytes: a name that is not valid UTF-8 gives a path in the exact
// `bytes:` form (src/os/byte-paths.ts), so it is captured from the real file.
// What looks like a source but is no regular file (a FIFO, a socket, a
// directory named *.jsonl) is skipped and listed in `skipped`.

import type { Dir, Dirent } from 'node:fs';
import { opendir } from 'node:fs/promises';
import type { SourceProblem } from '../../protocols/service.ts';
import { childPath, fsPath, nameText } from '../os/byte-paths.ts';
import { fileKind, notRegular } from '../os/source-file.ts';
import type { DiscoveredFile, FileSourceModule } from './source-module.ts';

const UNREADABLE_KEPT = 5;
/** Names of the files sources are made of (a non-regular entry so named is reported, not silently ignored). */
const SOURCE_NAME = /\.(jsonl|json|txt|zst)$/;
/** Skipped entries listed per pass, at most (the count goes on). */
const SKIPPED_LISTED = 100;

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
  /** Entries named like sources that are not regular files, in the last complete pass (and how many in all). */
  skipped: SourceProblem[] = [];
  skippedCount = 0;
  private skipping: SourceProblem[] = [];
  private skippingCount = 0;

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
    this.skipping = [];
    this.skippingCount = 0;
  }

  private cannotRead(path: string, error: unknown): void {
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    if (code === 'ENOENT' || code === 'ENOTDIR') return; // gone since it was listed: nothing to find there
    this.unreadableDirs++;
    if (this.unreadable.length < UNREADABLE_KEPT) this.unreadable.push({ path, code });
  }

  private skip(path: string, entry: Dirent<Buffer>): void {
    this.skippingCount++;
    if (this.skipping.length >= SKIPPED_LISTED) return;
    const error = notRegular(path, fileKind(entry));
    this.skipping.push({ path, code: error.code, message: entry.isDirectory() ? `${error.message} (a directory named like a transcript is not walked)` : error.message });
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
          this.skipped = this.skipping;
          this.skippedCount = this.skippingCount;
          return { files, passComplete: true };
        }
        try {
          // Node reads the names as bytes with encoding 'buffer' (its typings only list string encodings).
          this.current = { dir: await opendir(fsPath(next.path), { bufferSize: this.stepEntries, encoding: 'buffer' as BufferEncoding }), pending: next };
        } catch (error) {
          this.cannotRead(next.path, error);
          continue;
        }
      }
      const { dir, pending } = this.current;
      let entry: Dirent<Buffer> | null;
      try {
        entry = (await dir.read()) as unknown as Dirent<Buffer> | null;
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
      const path = childPath(pending.path, entry.name);
      const name = nameText(entry.name);
      const relative = [...pending.relative, name];
      if (entry.isSymbolicLink()) this.refusedLinks++;
      else if (entry.isDirectory() && name.endsWith('.jsonl')) this.skip(path, entry);
      else if (entry.isDirectory()) this.stack.push({ path, relative, module: pending.module });
      else if (entry.isFile()) files.push({ path, relative, module: pending.module });
      else if (SOURCE_NAME.test(name)) this.skip(path, entry);
    }
    return { files, passComplete: false };
  }

  async close(): Promise<void> {
    await this.current?.dir.close().catch(() => undefined);
    this.current = null;
  }
}
