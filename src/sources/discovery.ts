// Streamed discovery: walks the source roots a bounded number of directory
// entries per step (LIMITS.discoveryStepEntries), with no limit on depth or
// on the total, so a huge tree is covered in many small steps instead of one
// long scan. Symbolic links are never followed: a link below a root is
// refused and counted, so nothing outside the roots is read. Entry names are
// read as bytes: a name that is not valid UTF-8 gives a path in the exact
// `bytes:` form (src/os/byte-paths.ts), so it is captured from the real file.
// What looks like a source but is no regular file (a FIFO, a socket, a
// directory named *.jsonl) is skipped and listed in `skipped`.
//
// A walker that keeps listings (a serve run) remembers what each folder held
// with the folder's stamp (device, inode, mtime and ctime in nanoseconds). A
// background pass stats a folder first and, when the stamp is unchanged,
// replays its remembered entries instead of reading it: a folder's mtime
// changes whenever an entry is added, removed or renamed, so the replay is
// exactly what a read would give. Files are still handed out (a file that
// could not be classified yet is classified again), and subfolders are
// visited (their own stamps decide). A listing read within RACY_MS of its
// folder's mtime is not kept: on a file system with coarse timestamps a
// change in the same tick would not move the mtime.

import { statSync, type BigIntStats, type Dir, type Dirent } from 'node:fs';
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
/** A folder listing is kept only when read at least this long after the folder last changed. */
const RACY_MS = 2000;

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

/** What one directory entry is to the walk; a kept listing replays them in order. */
type WalkEntry =
  | { readonly kind: 'file'; readonly found: Found }
  | { readonly kind: 'dir'; readonly dir: PendingDir }
  | { readonly kind: 'link' }
  | { readonly kind: 'skip'; readonly problem: SourceProblem };

interface Listing {
  readonly stamp: string;
  readonly entries: readonly WalkEntry[];
}

/** A folder being read, or a kept listing being replayed. */
type Current =
  | { readonly kind: 'read'; readonly dir: Dir; readonly pending: PendingDir; readonly entries: WalkEntry[]; readonly keep: string | null }
  | { readonly kind: 'replay'; readonly entries: readonly WalkEntry[]; index: number };

function stampOf(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.mtimeNs}:${info.ctimeNs}`;
}

export interface StepResult {
  readonly files: Found[];
  /** The walk reached its end with this step; the next step starts a new pass. */
  readonly passComplete: boolean;
}

export class DiscoveryWalker {
  private stack: PendingDir[] = [];
  private current: Current | null = null;
  private passStarted = false;
  /** Folder listings by path (only when keeping them). */
  private readonly listings = new Map<string, Listing>();
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
  /** Folders replayed from a kept listing, and read, since the walker was made. */
  replayedDirs = 0;
  readDirs = 0;

  constructor(
    private readonly roots: readonly DiscoveryRoot[],
    private readonly stepEntries: number,
    private readonly options: { readonly keepListings: boolean } = { keepListings: false },
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

  /** What a directory entry is to the walk (null: nothing, like a socket not named as a source). */
  private entryOf(pending: PendingDir, entry: Dirent<Buffer>): WalkEntry | null {
    const path = childPath(pending.path, entry.name);
    const name = nameText(entry.name);
    const relative = [...pending.relative, name];
    if (entry.isSymbolicLink()) return { kind: 'link' };
    if (entry.isDirectory() && name.endsWith('.jsonl')) return { kind: 'skip', problem: skippedProblem(path, entry) };
    if (entry.isDirectory()) return { kind: 'dir', dir: { path, relative, module: pending.module } };
    if (entry.isFile()) return { kind: 'file', found: { path, relative, module: pending.module } };
    if (SOURCE_NAME.test(name)) return { kind: 'skip', problem: skippedProblem(path, entry) };
    return null;
  }

  private take(entry: WalkEntry, files: Found[]): void {
    switch (entry.kind) {
      case 'file':
        files.push(entry.found);
        break;
      case 'dir':
        this.stack.push(entry.dir);
        break;
      case 'link':
        this.refusedLinks++;
        break;
      case 'skip':
        this.skippingCount++;
        if (this.skipping.length < SKIPPED_LISTED) this.skipping.push(entry.problem);
        break;
    }
  }

  /**
   * Begin the next folder: replay its kept listing when `reuse` and its stamp
   * is unchanged, else open it. False when the pass has no folder left.
   */
  private async begin(reuse: boolean): Promise<boolean> {
    for (;;) {
      const next = this.stack.pop();
      if (next === undefined) return false;
      const path = fsPath(next.path);
      let keep: string | null = null;
      if (this.options.keepListings) {
        let info: BigIntStats;
        try {
          // On this thread, as the idle poll's stats (src/ingest/observe.ts): a background pass stats every folder.
          info = statSync(path, { bigint: true }); // follows a root that is a link, as opendir does; subfolders are no links
        } catch (error) {
          this.cannotRead(next.path, error);
          continue;
        }
        const stamp = stampOf(info);
        const kept = this.listings.get(next.path);
        if (reuse && kept !== undefined && kept.stamp === stamp) {
          this.replayedDirs++;
          this.current = { kind: 'replay', entries: kept.entries, index: 0 };
          return true;
        }
        keep = Date.now() - Number(info.mtimeMs) >= RACY_MS ? stamp : null;
      }
      try {
        // Node reads the names as bytes with encoding 'buffer' (its typings only list string encodings).
        const dir = await opendir(path, { bufferSize: this.stepEntries, encoding: 'buffer' as BufferEncoding });
        this.readDirs++;
        this.current = { kind: 'read', dir, pending: next, entries: [], keep };
        return true;
      } catch (error) {
        this.cannotRead(next.path, error);
      }
    }
  }

  /**
   * Read at most `stepEntries` directory entries. `reuse` (a background
   * pass of a walker that keeps listings) replays unchanged folders.
   */
  async step(reuse = false): Promise<StepResult> {
    if (!this.passStarted) this.startPass();
    const files: Found[] = [];
    let entries = 0;
    while (entries < this.stepEntries) {
      if (this.current === null && !(await this.begin(reuse))) {
        this.passStarted = false;
        this.passes++;
        this.skipped = this.skipping;
        this.skippedCount = this.skippingCount;
        return { files, passComplete: true };
      }
      const current = this.current as Current;
      if (current.kind === 'replay') {
        const entry = current.entries[current.index++];
        if (entry === undefined) {
          this.current = null;
          continue;
        }
        entries++;
        this.take(entry, files);
        continue;
      }
      let dirent: Dirent<Buffer> | null;
      let complete = true;
      try {
        dirent = (await current.dir.read()) as unknown as Dirent<Buffer> | null;
      } catch (error) {
        this.cannotRead(current.pending.path, error);
        dirent = null;
        complete = false;
      }
      if (dirent === null) {
        await current.dir.close().catch(() => undefined);
        this.current = null;
        if (complete && current.keep !== null) this.listings.set(current.pending.path, { stamp: current.keep, entries: current.entries });
        continue;
      }
      entries++;
      const entry = this.entryOf(current.pending, dirent);
      if (entry === null) continue;
      if (this.options.keepListings) current.entries.push(entry);
      this.take(entry, files);
    }
    return { files, passComplete: false };
  }

  async close(): Promise<void> {
    if (this.current?.kind === 'read') await this.current.dir.close().catch(() => undefined);
    this.current = null;
  }
}

function skippedProblem(path: string, entry: Dirent<Buffer>): SourceProblem {
  const error = notRegular(path, fileKind(entry));
  return { path, code: error.code, message: entry.isDirectory() ? `${error.message} (a directory named like a transcript is not walked)` : error.message };
}
