// The OpenCode record provider: sessions, messages and parts of every OpenCode
// database (locate.ts), one bounded step per batch (database.ts), committed by
// the history actor with the cursors they advance. Rows are decoded here, in
// the history worker thread, not in the parser pool: a typical row is a few
// KiB whose decoding costs less than a pool round trip, and a reindex derives
// documents synchronously (RecordProvider.documentsFor); see
// bench/opencode-decode.ts for the figures.

import type { SourceProblem } from '../../../protocols/service.ts';
import type { HistoryPaths } from '../../config/paths.ts';
import type { Limits } from '../../config/limits.ts';
import { BatchEffects, type RecordProvider, type RetainedRow } from '../../ingest/provider.ts';
import type { RowBatch, RowDocument } from '../../../protocols/rows.ts';
import type { HistoryAsk } from '../../../protocols/history.ts';
import { OpenCodeDatabase } from './database.ts';
import { sliceDocuments } from './documents.ts';
import { parseSource } from '../../keys/opencode.ts';
import { locateDatabases } from './locate.ts';
import { SnapshotStore } from './snapshot.ts';
import { StepOutput, type StepBudget } from './step.ts';
import { carryOf } from './text.ts';
import { join } from 'node:path';

export interface OpenCodeProviderDeps {
  readonly paths: HistoryPaths;
  readonly limits: Limits;
  readonly history: HistoryAsk;
  readonly resolveProject: (cwd: string) => Promise<string>;
  readonly mode: 'serve' | 'once';
  readonly now?: () => number;
}

/** Carries of the last slices seen by documentsFor, for the next slice of the same revision. */
const CARRY_CACHE = 256;

export class OpenCodeProvider implements RecordProvider {
  readonly name = 'opencode';
  private readonly databases = new Map<string, OpenCodeDatabase>();
  private readonly snapshots: SnapshotStore;
  private readonly budget: StepBudget;
  private readonly now: () => number;
  private locatedAt: number | null = null;
  private readonly outstanding = new BatchEffects();
  private readonly carries = new Map<string, Uint8Array>();

  constructor(private readonly deps: OpenCodeProviderDeps) {
    this.now = deps.now ?? Date.now;
    this.snapshots = new SnapshotStore(join(deps.paths.bridgeHome, 'opencode-snapshots'));
    // Derived-text budget of a batch (the spec's 512 KiB), and a bound on rows looked at.
    this.budget = { bytes: deps.limits.batchBodyBytes, rows: 256 };
  }

  get backlog(): boolean {
    if (this.locatedAt === null) return true;
    for (const db of this.databases.values()) if (db.backlog) return true;
    return false;
  }

  private async locate(): Promise<void> {
    const now = this.now();
    if (this.locatedAt !== null && now - this.locatedAt < this.deps.limits.discoveryRevisitMs) return;
    if (this.locatedAt === null) await this.snapshots.clear();
    this.locatedAt = now;
    for (const found of await locateDatabases(this.deps.paths)) {
      if (this.databases.has(found.path)) continue;
      const { history, resolveProject, limits, mode } = this.deps;
      this.databases.set(found.path, new OpenCodeDatabase(found.path, found.tag, { history, resolveProject, limits, mode, snapshots: this.snapshots, budget: this.budget, now: this.now }));
    }
  }

  async next(): Promise<RowBatch | null> {
    await this.locate();
    const out = new StepOutput(this.budget);
    for (const db of this.databases.values()) await db.step(out);
    if (out.records.length === 0 && out.cursors.size === 0 && out.links.length === 0) {
      for (const effect of out.effects) effect(); // nothing to commit: the state it describes is already true
      return null;
    }
    const batch: RowBatch = { provider: this.name, records: out.records, cursors: [...out.cursors], links: out.links };
    this.outstanding.hold(batch, out.effects);
    return batch;
  }

  committed(batch: RowBatch): void {
    this.outstanding.committed(batch);
  }

  abandoned(batch: RowBatch): void {
    this.outstanding.abandoned(batch);
  }

  problems(): SourceProblem[] {
    const list: SourceProblem[] = [];
    for (const db of this.databases.values()) if (db.problem !== null) list.push(db.problem);
    return list;
  }

  owns(source: string): boolean {
    return parseSource(source) !== null;
  }

  documentsFor(row: RetainedRow): RowDocument[] {
    const parsed = parseSource(row.source);
    if (parsed === null) return [];
    const key = (end: number): string => `${row.source}\u0000${row.generation}\u0000${end}`;
    const documents = sliceDocuments(parsed.table, row.offset, row.raw, () => this.carries.get(key(row.offset)) ?? this.previousCarry(row));
    if (this.carries.size >= CARRY_CACHE) this.carries.delete(this.carries.keys().next().value as string);
    this.carries.set(key(row.offset + row.raw.length), carryOf(row.raw));
    return documents;
  }

  /** The carry of the retained slice that ends where `row` starts (a reindex resumed mid-revision). */
  private previousCarry(row: RetainedRow): Uint8Array {
    for (const chunk of this.deps.history({ type: 'retained', source: row.source, generation: row.generation })) {
      if (chunk.offset + chunk.raw.length === row.offset) return carryOf(chunk.raw);
      if (chunk.offset >= row.offset) break;
    }
    return new Uint8Array(0);
  }

  async close(): Promise<void> {
    await this.snapshots.clear();
  }
}
