// Decoding the b-trees of a damaged SQLite file page by page
// (https://sqlite.org/fileformat2.html §1.6, §2.1): table and index pages,
// their cells, overflow chains and records. Every structure is checked
// before it is trusted: a page whose header or cell pointers do not fit, a
// cell whose payload does not add up, an overflow chain that leaves the file,
// loops, shares a page with another structure or does not end where its
// length says, is skipped (and counted), never guessed at.
//
// Pages reached from a b-tree root are claimed as they are read, so that the
// pages no root reaches (the subtrees below a damaged interior page) can be
// scanned afterwards for cells of their own.

import type { SqliteFile } from './sqlite-file.ts';

export type Value = null | number | bigint | string | Buffer;

export interface TableRow {
  readonly rowid: number;
  readonly values: Value[];
}

const INDEX_INTERIOR = 2;
const TABLE_INTERIOR = 5;
const INDEX_LEAF = 10;
const TABLE_LEAF = 13;

interface PageHeader {
  readonly type: number;
  readonly cells: number[];
  readonly right: number;
}

function varint(buf: Buffer, at: number, end: number): [bigint, number] | null {
  let value = 0n;
  for (let i = 0; i < 9; i++) {
    if (at + i >= end) return null;
    const byte = buf[at + i] as number;
    if (i === 8) return [BigInt.asIntN(64, (value << 8n) | BigInt(byte)), 9];
    value = (value << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) === 0) return [BigInt.asIntN(64, value), i + 1];
  }
  return null;
}

function toNumber(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** The values of one record (header of serial types, then the body), or null when it does not parse exactly. */
export function decodeRecord(buf: Buffer): Value[] | null {
  const head = varint(buf, 0, buf.length);
  if (head === null) return null;
  const headerSize = Number(head[0]);
  if (headerSize < head[1] || headerSize > buf.length) return null;
  const types: number[] = [];
  let pos = head[1];
  while (pos < headerSize) {
    const t = varint(buf, pos, headerSize);
    if (t === null || t[0] < 0n || t[0] > 0x7fffffffn) return null;
    types.push(Number(t[0]));
    pos += t[1];
  }
  if (pos !== headerSize) return null;
  const values: Value[] = [];
  let body = headerSize;
  for (const t of types) {
    let size: number;
    if (t === 0 || t === 8 || t === 9) size = 0;
    else if (t >= 1 && t <= 4) size = t;
    else if (t === 5) size = 6;
    else if (t === 6 || t === 7) size = 8;
    else if (t >= 12) size = Math.floor((t - 12) / 2);
    else return null; // 10, 11: reserved
    if (body + size > buf.length) return null;
    if (t === 0) values.push(null);
    else if (t === 8) values.push(0);
    else if (t === 9) values.push(1);
    else if (t <= 6) {
      let v = 0n;
      for (let i = 0; i < size; i++) v = (v << 8n) | BigInt(buf[body + i] as number);
      values.push(toNumber(BigInt.asIntN(size * 8, v)));
    } else if (t === 7) values.push(buf.readDoubleBE(body));
    else if (t % 2 === 0) values.push(Buffer.from(buf.subarray(body, body + size)));
    else values.push(buf.toString('utf8', body, body + size));
    body += size;
  }
  return body === buf.length ? values : null;
}

export interface ReadStats {
  /** Pages that should hold a b-tree page or an overflow page and do not. */
  badPages: number;
  /** Cells that could not be decoded (a damaged cell or overflow chain). */
  badCells: number;
}

export class BtreeReader {
  /** Pages belonging to a structure already read (b-tree pages, overflow chains). */
  private readonly claimed: Uint8Array;
  readonly stats: ReadStats = { badPages: 0, badCells: 0 };

  constructor(private readonly file: SqliteFile) {
    this.claimed = new Uint8Array(file.pageCount + 1);
  }

  private claim(n: number): boolean {
    if (n < 1 || n > this.file.pageCount || this.claimed[n] === 1) return false;
    this.claimed[n] = 1;
    return true;
  }

  private header(page: Buffer, n: number): PageHeader | null {
    const usable = this.file.usable;
    const h = n === 1 ? 100 : 0;
    const type = page[h] as number;
    if (type !== INDEX_INTERIOR && type !== TABLE_INTERIOR && type !== INDEX_LEAF && type !== TABLE_LEAF) return null;
    const interior = type === INDEX_INTERIOR || type === TABLE_INTERIOR;
    const count = page.readUInt16BE(h + 3);
    const pointers = h + (interior ? 12 : 8);
    if (pointers + 2 * count > usable) return null;
    const cells: number[] = [];
    for (let i = 0; i < count; i++) {
      const offset = page.readUInt16BE(pointers + 2 * i);
      if (offset < pointers + 2 * count || offset >= usable) return null;
      cells.push(offset);
    }
    return { type, cells, right: interior ? page.readUInt32BE(h + 8) : 0 };
  }

  /** Overflow pages claimed by the last payload() that returned bytes. */
  private lastChain: number[] = [];

  /** The payload of a cell: its local bytes, followed through the overflow chain (claimed); null when damaged. */
  private payload(page: Buffer, at: number, size: number, index: boolean): Buffer | null {
    this.lastChain = [];
    const usable = this.file.usable;
    const max = index ? Math.floor(((usable - 12) * 64) / 255) - 23 : usable - 35;
    const min = Math.floor(((usable - 12) * 32) / 255) - 23;
    let local = size;
    if (size > max) {
      const k = min + ((size - min) % (usable - 4));
      local = k <= max ? k : min;
    }
    if (at + local + (local < size ? 4 : 0) > usable) return null;
    if (local === size) return Buffer.from(page.subarray(at, at + size));
    const out = Buffer.alloc(size);
    page.copy(out, 0, at, at + local);
    let filled = local;
    let next = page.readUInt32BE(at + local);
    const taken: number[] = [];
    while (filled < size) {
      if (!this.claim(next)) return this.release(taken);
      taken.push(next);
      const overflow = this.file.page(next);
      if (overflow === null) return this.release(taken);
      const n = Math.min(size - filled, usable - 4);
      overflow.copy(out, filled, 4, 4 + n);
      filled += n;
      next = overflow.readUInt32BE(0);
      if (filled < size ? next === 0 : next !== 0) return this.release(taken);
    }
    this.lastChain = taken;
    return out;
  }

  /** A damaged chain gives back the pages it claimed (they may belong to something else). */
  private release(pages: readonly number[]): null {
    for (const n of pages) this.claimed[n] = 0;
    return null;
  }

  private tableLeafCell(page: Buffer, at: number): TableRow | null {
    const usable = this.file.usable;
    const size = varint(page, at, usable);
    if (size === null || size[0] < 0n || size[0] > 0x7fffffffn) return null;
    const rowid = varint(page, at + size[1], usable);
    if (rowid === null) return null;
    const payload = this.payload(page, at + size[1] + rowid[1], Number(size[0]), false);
    const values = payload === null ? null : decodeRecord(payload);
    if (values === null) return null;
    return { rowid: Number(rowid[0]), values };
  }

  private indexCell(page: Buffer, at: number, interior: boolean): Value[] | null {
    const start = interior ? at + 4 : at;
    const size = varint(page, start, this.file.usable);
    if (size === null || size[0] < 0n || size[0] > 0x7fffffffn) return null;
    const payload = this.payload(page, start + size[1], Number(size[0]), true);
    return payload === null ? null : decodeRecord(payload);
  }

  /**
   * Walk the b-tree rooted at `root` (a table when `index` is false), calling
   * `row` for every cell that decodes. Damaged pages and cells are skipped and
   * counted; the pages below a damaged interior page are left for orphans().
   */
  walk(root: number, index: false, row: (cell: TableRow) => void): void;
  walk(root: number, index: true, row: (values: Value[]) => void): void;
  walk(root: number, index: boolean, row: ((cell: TableRow) => void) | ((values: Value[]) => void)): void {
    const stack = [root];
    while (stack.length > 0) {
      const n = stack.pop() as number;
      if (!this.claim(n)) {
        this.stats.badPages++;
        continue;
      }
      const page = this.file.page(n);
      const header = page === null ? null : this.header(page, n);
      const kinds = index ? [INDEX_INTERIOR, INDEX_LEAF] : [TABLE_INTERIOR, TABLE_LEAF];
      if (page === null || header === null || !kinds.includes(header.type)) {
        this.stats.badPages++;
        continue;
      }
      const children: number[] = [];
      for (const at of header.cells) {
        if (header.type === TABLE_INTERIOR) {
          children.push(page.readUInt32BE(at));
        } else if (header.type === TABLE_LEAF) {
          const cell = this.tableLeafCell(page, at);
          if (cell === null) this.stats.badCells++;
          else (row as (cell: TableRow) => void)(cell);
        } else {
          if (header.type === INDEX_INTERIOR) children.push(page.readUInt32BE(at));
          const values = this.indexCell(page, at, header.type === INDEX_INTERIOR);
          if (values === null) this.stats.badCells++;
          else (row as (values: Value[]) => void)(values);
        }
      }
      if (header.right !== 0) children.push(header.right);
      // Visit children left to right (the stack pops the last pushed first).
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as number);
    }
  }

  /**
   * Cells of table leaf pages that no walk reached: pages below a damaged
   * interior page (or of a table whose root is lost). `take` says whether a
   * cell is wanted; a page is claimed once one of its cells was taken. Call
   * after every walk, so that every page a live structure uses is claimed
   * first.
   */
  orphans(take: (cell: TableRow) => boolean): void {
    for (let n = 2; n <= this.file.pageCount; n++) {
      if (this.claimed[n] === 1) continue;
      const page = this.file.page(n);
      const header = page === null ? null : this.header(page, n);
      if (page === null || header === null || header.type !== TABLE_LEAF) continue;
      let taken = false;
      for (const at of header.cells) {
        const cell = this.tableLeafCell(page, at);
        if (cell === null) continue;
        if (take(cell)) taken = true;
        else this.release(this.lastChain); // not wanted here: its overflow pages may still be someone's
      }
      if (taken) this.claimed[n] = 1;
    }
  }
}
