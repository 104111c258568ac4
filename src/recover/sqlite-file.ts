// Reading the pages of a damaged SQLite database without SQLite: the main
// file, overlaid with the committed frames of its write-ahead log (`-wal`),
// exactly as SQLite would see them (https://sqlite.org/fileformat2.html,
// §1 and §4). Nothing here writes: the damaged files are only read, so a
// recovery can be repeated on them.
//
// A header that is itself damaged does not stop the reader: the page size
// then comes from the WAL header, else from the pages themselves (the size at
// which b-tree page headers line up, probePageSize), so the pages can still
// be scanned one by one.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const MAGIC = Buffer.from('SQLite format 3\u0000', 'latin1');
const WAL_MAGIC_LE = 0x377f0682;
const WAL_MAGIC_BE = 0x377f0683;
const DEFAULT_PAGE_SIZE = 4096;
const PAGE_SIZES = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536];
/** Page starts probePageSize looks at for each candidate size, all within the first PROBE_BYTES of the file. */
const PROBE_PAGES = 512;
const PROBE_BYTES = 64 * 1024 * 1024;

function validPageSize(n: number): boolean {
  return n >= 512 && n <= 65536 && (n & (n - 1)) === 0;
}

/** Whether `head` (a page's first bytes) reads as the header of a b-tree page of `pageSize` bytes (fileformat2 §1.6). */
function looksLikeBtreePage(head: Buffer, pageSize: number): boolean {
  const type = head[0];
  if (type !== 2 && type !== 5 && type !== 10 && type !== 13) return false;
  const headerBytes = type === 2 || type === 5 ? 12 : 8;
  const freeblock = head.readUInt16BE(1);
  const cells = head.readUInt16BE(3);
  const content = head.readUInt16BE(5) || 65536;
  return content <= pageSize && headerBytes + 2 * cells <= content && (freeblock === 0 || (freeblock >= headerBytes && freeblock < pageSize));
}

/**
 * The page size of a file whose header is damaged and which has no WAL.
 * For each candidate size, the share of its odd multiples (offsets that are
 * not multiples of the next larger size) that hold a b-tree page header: at
 * the true size and above, those offsets are page starts, so the share is
 * that of b-tree pages among pages; below it, they fall inside pages and
 * almost never look like one. The smallest size with a share like the best
 * one's is the page size. Page 1 (offset 0) is left out: its header is the
 * damaged one.
 */
export function probePageSize(fd: number, fileSize: number): number {
  // Every size looks over the same bytes (spread evenly when there are more odd multiples than PROBE_PAGES), and a
  // zeroed start (damage that wiped a region) counts for none: each share compares like with like.
  const range = Math.min(fileSize, PROBE_BYTES);
  const shares = PAGE_SIZES.map((size) => {
    const odd = Math.floor(range / size / 2);
    const step = Math.max(1, Math.ceil(odd / PROBE_PAGES));
    let looked = 0;
    let hits = 0;
    for (let k = 0; k < odd; k += step) {
      const head = readAt(fd, (2 * k + 1) * size, 12);
      if (head.length < 12 || head.every((byte) => byte === 0)) continue;
      looked++;
      if (looksLikeBtreePage(head, size)) hits++;
    }
    return looked === 0 ? 0 : hits / looked;
  });
  const best = Math.max(...shares);
  if (best === 0) return DEFAULT_PAGE_SIZE;
  return PAGE_SIZES[shares.findIndex((share) => share >= best / 4)] as number;
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const n = readSync(fd, buffer, filled, length - filled, position + filled);
    if (n === 0) break;
    filled += n;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

export interface WalFrames {
  readonly pageSize: number;
  /** Page number → file offset of its newest committed copy in the WAL. */
  readonly pages: Map<number, number>;
  /** Database size in pages after the last committed transaction (0 when no commit). */
  readonly dbPages: number;
}

/** The committed frames of a WAL file: frames are valid while salts and the running checksum match. */
export function readWal(fd: number): WalFrames | null {
  const size = fstatSync(fd).size;
  if (size < 32) return null;
  const header = readAt(fd, 0, 32);
  const magic = header.readUInt32BE(0);
  if (magic !== WAL_MAGIC_LE && magic !== WAL_MAGIC_BE) return null;
  const bigEndian = magic === WAL_MAGIC_BE;
  const pageSize = header.readUInt32BE(8);
  if (!validPageSize(pageSize)) return null;
  const word = (b: Buffer, i: number): number => (bigEndian ? b.readUInt32BE(i) : b.readUInt32LE(i));
  let s0 = 0;
  let s1 = 0;
  const sum = (b: Buffer, start: number, end: number): void => {
    for (let i = start; i < end; i += 8) {
      s0 = (s0 + word(b, i) + s1) >>> 0;
      s1 = (s1 + word(b, i + 4) + s0) >>> 0;
    }
  };
  sum(header, 0, 24);
  if (s0 !== header.readUInt32BE(24) || s1 !== header.readUInt32BE(28)) return null;
  const salt1 = header.readUInt32BE(16);
  const salt2 = header.readUInt32BE(20);
  const pages = new Map<number, number>();
  const pending = new Map<number, number>();
  let dbPages = 0;
  const frameSize = 24 + pageSize;
  for (let at = 32; at + frameSize <= size; at += frameSize) {
    const frame = readAt(fd, at, frameSize);
    if (frame.readUInt32BE(8) !== salt1 || frame.readUInt32BE(12) !== salt2) break;
    sum(frame, 0, 8);
    sum(frame, 24, frameSize);
    if (s0 !== frame.readUInt32BE(16) || s1 !== frame.readUInt32BE(20)) break;
    pending.set(frame.readUInt32BE(0), at + 24);
    const commit = frame.readUInt32BE(4);
    if (commit !== 0) {
      for (const [page, offset] of pending) pages.set(page, offset);
      pending.clear();
      dbPages = commit;
    }
  }
  return { pageSize, pages, dbPages };
}

export class SqliteFile {
  readonly pageSize: number;
  /** Bytes at the end of each page reserved for extensions. */
  readonly reserved: number;
  readonly pageCount: number;
  /** The main file starts with SQLite's header. */
  readonly headerValid: boolean;
  private readonly wal: WalFrames | null;

  private constructor(
    private readonly fd: number,
    private readonly walFd: number | null,
    fileSize: number,
  ) {
    const head = readAt(fd, 0, 100);
    this.headerValid = head.length === 100 && head.subarray(0, 16).equals(MAGIC);
    const stated = this.headerValid ? head.readUInt16BE(16) : 0;
    const headerSize = stated === 1 ? 65536 : stated;
    this.wal = walFd === null ? null : readWal(walFd);
    this.pageSize = validPageSize(headerSize) ? headerSize : (this.wal?.pageSize ?? probePageSize(fd, fileSize));
    const reserved = this.headerValid ? (head[20] as number) : 0;
    this.reserved = reserved < this.pageSize - 480 ? reserved : 0;
    const walPages = this.wal !== null && this.wal.pageSize === this.pageSize ? this.wal.dbPages : 0;
    this.pageCount = Math.max(Math.floor(fileSize / this.pageSize), walPages);
  }

  /** Open `path` (and `path-wal` when present) read-only. */
  static open(path: string): SqliteFile {
    const fd = openSync(path, 'r');
    let walFd: number | null = null;
    try {
      walFd = openSync(`${path}-wal`, 'r');
    } catch {
      walFd = null;
    }
    return new SqliteFile(fd, walFd, fstatSync(fd).size);
  }

  get usable(): number {
    return this.pageSize - this.reserved;
  }

  /** Page `n` (1-based) as SQLite sees it, or null when it lies beyond what either file holds. */
  page(n: number): Buffer | null {
    if (n < 1 || n > this.pageCount) return null;
    const inWal = this.wal !== null && this.wal.pageSize === this.pageSize ? this.wal.pages.get(n) : undefined;
    if (inWal !== undefined && this.walFd !== null) return readAt(this.walFd, inWal, this.pageSize);
    const bytes = readAt(this.fd, (n - 1) * this.pageSize, this.pageSize);
    return bytes.length === this.pageSize ? bytes : null;
  }

  close(): void {
    closeSync(this.fd);
    if (this.walFd !== null) closeSync(this.walFd);
  }
}
