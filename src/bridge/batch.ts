// One bridge batch as it is built: the records of every lane, the cursors
// and markers they advance, bindings and aliases, and the in-memory effects
// that run only once the history actor committed it (an abandoned batch
// leaves the provider exactly as the store is).
//
// Budget (specification, "Bounded background work"): derived text stops at
// 512 KiB per batch, raw bytes at the batch raw cap; the version that crosses
// a budget is still included, so one large row always makes progress.

import type { AliasRow, BindingRow, RowBatch, RowRecord } from '../../protocols/rows.ts';
import { bodyBytes, rowRecords, type RowVersion } from './records.ts';
import type { KnownVersion } from './versions.ts';

export interface BatchLimits {
  readonly bodyBytes: number;
  readonly rawBytes: number;
}

export class BridgeBatch {
  readonly records: RowRecord[] = [];
  readonly cursors = new Map<string, string>();
  readonly bindings: BindingRow[] = [];
  readonly aliases: AliasRow[] = [];
  readonly effects: Array<() => void> = [];
  private body = 0;
  private raw = 0;
  /** Versions added by this batch, by source (not yet in the store). */
  private readonly added = new Map<string, KnownVersion[]>();

  constructor(private readonly limits: BatchLimits) {}

  get exhausted(): boolean {
    return this.body >= this.limits.bodyBytes || this.raw >= this.limits.rawBytes;
  }

  get empty(): boolean {
    return this.records.length === 0 && this.cursors.size === 0 && this.bindings.length === 0 && this.aliases.length === 0;
  }

  addVersion(version: RowVersion, fingerprint: string): void {
    this.records.push(...rowRecords(version));
    this.body += bodyBytes(version);
    this.raw += version.raw.length;
    const list = this.added.get(version.source) ?? [];
    list.push({ generation: version.generation, fingerprint, raw: version.raw });
    this.added.set(version.source, list);
  }

  /** Versions of `source` this batch already holds. */
  addedVersions(source: string): readonly KnownVersion[] {
    return this.added.get(source) ?? [];
  }

  toRowBatch(provider: string): RowBatch {
    return { provider, records: this.records, cursors: [...this.cursors], links: [], bindings: this.bindings, aliases: this.aliases };
  }
}
