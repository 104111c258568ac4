// Typed, length-delimited row hashing: "bh-row-v1", the row hash of the
// fixture manifest (fixtures/README-bridge-home.md), so a migrated table can
// be compared with what the legacy home held.
//
// Each row contributes a 4-byte big-endian cell count (columns + 1), the rowid
// as an INTEGER cell, then one cell per column in table_info order. A cell is
// a 1-byte storage-class tag (null 0, integer 1, real 2, text 3, blob 4), an
// 8-byte big-endian payload length, then the payload (8-byte big-endian
// int64 / binary64, or the stored bytes). The per-table digest is SHA-256
// over all rows in rowid order; a chunk digest is SHA-256 over the chunk's
// rows, so equal chunk digests mean equal rows, types and bytes.

import { createHash } from 'node:crypto';
import type { CellType, RawRow } from './rows.ts';

export const ROW_HASH = 'bh-row-v1';

export interface ByteSink {
  update(data: Uint8Array): unknown;
}

const TAGS: Record<CellType, number> = { null: 0, integer: 1, real: 2, text: 3, blob: 4 };
/** Payloads at least this long are passed to the sinks directly instead of through the scratch buffer. */
const DIRECT = 4096;
const SCRATCH = 64 * 1024;

/** Encodes rows into one or more sinks, batching small cells into a scratch buffer. */
export class RowEncoder {
  private readonly scratch = Buffer.allocUnsafe(SCRATCH);
  private used = 0;

  constructor(private readonly sinks: readonly ByteSink[]) {}

  private flush(): void {
    if (this.used === 0) return;
    const view = this.scratch.subarray(0, this.used);
    for (const sink of this.sinks) sink.update(view);
    this.used = 0;
  }

  private room(bytes: number): void {
    if (this.used + bytes > SCRATCH) this.flush();
  }

  private cell(type: CellType, value: unknown): void {
    this.room(17);
    const s = this.scratch;
    s[this.used] = TAGS[type];
    if (type === 'null') {
      s.writeBigUInt64BE(0n, this.used + 1);
      this.used += 9;
      return;
    }
    if (type === 'integer' || type === 'real') {
      s.writeBigUInt64BE(8n, this.used + 1);
      if (type === 'integer') s.writeBigInt64BE(BigInt(value as bigint | number), this.used + 9);
      else s.writeDoubleBE(Number(value), this.used + 9);
      this.used += 17;
      return;
    }
    const bytes = value as Uint8Array;
    s.writeBigUInt64BE(BigInt(bytes.length), this.used + 1);
    this.used += 9;
    if (bytes.length >= DIRECT) {
      this.flush();
      for (const sink of this.sinks) sink.update(bytes);
      return;
    }
    this.room(bytes.length);
    this.scratch.set(bytes, this.used);
    this.used += bytes.length;
  }

  row(row: RawRow): void {
    this.room(4);
    this.scratch.writeUInt32BE((row.length - 1) / 2 + 1, this.used);
    this.used += 4;
    this.cell('integer', row[0]);
    for (let i = 1; i < row.length; i += 2) this.cell(row[i] as CellType, row[i + 1]);
  }

  /** Push everything buffered to the sinks. */
  end(): void {
    this.flush();
  }
}

/**
 * SHA-256 (hex) of the rows' bh-row-v1 encoding. `extra` sinks (a table-wide
 * stream digest) receive the same bytes.
 */
export function chunkDigest(rows: readonly RawRow[], extra: readonly ByteSink[] = []): string {
  const hash = createHash('sha256');
  const encoder = new RowEncoder([hash, ...extra]);
  for (const row of rows) encoder.row(row);
  encoder.end();
  return hash.digest('hex');
}
