// What a WAL holds, frame by frame, and which b-tree owns each frame's page.
//
// SQLite's WAL file (https://www.sqlite.org/fileformat2.html#walformat): a
// 32-byte header (page size at byte 8), then frames of a 24-byte header (page
// number at byte 0, the database size after a commit at byte 4, non-zero only
// on a transaction's last frame) and one page. A WAL that was never reset
// (no checkpoint ran while it grew) holds every page every transaction wrote.
// Owners come from dbstat on the store as it is at the end: a page freed and
// reused by another b-tree during the run counts for its last owner.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type Database from 'better-sqlite3';

export interface WalFrames {
  readonly pageBytes: number;
  /** The page numbers each transaction wrote, in commit order (a trailing uncommitted transaction is left out). */
  readonly commits: number[][];
}

export function readWalFrames(walPath: string): WalFrames {
  const fd = openSync(walPath, 'r');
  try {
    const header = Buffer.alloc(32);
    readSync(fd, header, 0, 32, 0);
    const pageBytes = header.readUInt32BE(8);
    const frameBytes = 24 + pageBytes;
    const frames = Math.floor((fstatSync(fd).size - 32) / frameBytes);
    const commits: number[][] = [];
    const frame = Buffer.alloc(24);
    let pages: number[] = [];
    for (let i = 0; i < frames; i++) {
      readSync(fd, frame, 0, 24, 32 + i * frameBytes);
      pages.push(frame.readUInt32BE(0));
      if (frame.readUInt32BE(4) !== 0) {
        commits.push(pages);
        pages = [];
      }
    }
    return { pageBytes, commits };
  } finally {
    closeSync(fd);
  }
}

/** The b-tree (table or index name) owning every page now, '(free)' for pages no b-tree holds. */
export function pageOwners(db: Database.Database): (page: number) => string {
  const owners = new Map<number, string>();
  for (const row of db.prepare('SELECT name, pageno FROM dbstat').iterate() as IterableIterator<{ name: string; pageno: number }>) owners.set(row.pageno, row.name);
  return (page) => owners.get(page) ?? (page === 1 ? 'sqlite_schema' : '(free)');
}

export interface OwnerFrames {
  readonly owner: string;
  readonly frames: number;
  /** Distinct pages among them. */
  readonly pages: number;
}

/** Frames written per owner over `commits`, most first. */
export function framesByOwner(commits: readonly number[][], ownerOf: (page: number) => string): OwnerFrames[] {
  const frames = new Map<string, number>();
  const pages = new Map<string, Set<number>>();
  for (const commit of commits) {
    for (const page of commit) {
      const owner = ownerOf(page);
      frames.set(owner, (frames.get(owner) ?? 0) + 1);
      let set = pages.get(owner);
      if (set === undefined) pages.set(owner, (set = new Set()));
      set.add(page);
    }
  }
  return [...frames].map(([owner, n]) => ({ owner, frames: n, pages: pages.get(owner)?.size ?? 0 })).sort((a, b) => b.frames - a.frames);
}
