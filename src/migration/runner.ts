// Runs (or resumes) the lossless split migration of a home to its end:
//
//   history_migration   absent -> snapshotting -> copying -> verified
//                                       \______________\____-> failed (latched)
//   progress phase      snapshot -> snapshot-verify -> copy -> verify -> verified
//
// The progress database is the truth about where the passes are; the
// history_migration row is what readers switch on and what latches. A fresh
// home (no legacy table in bridge.db, or no bridge.db) is verified at once
// with an empty manifest. A data disagreement (VERIFY_FAILED and the like)
// latches `failed`: the row keeps the error and where to resume, and no
// restart retries it; only `agent-bridge reindex --retry` clears it.
// Environment trouble (busy, locked, IO errors, disk full, permissions) is
// retried after a cooldown and never latched.

import type { HistoryErrorShape } from '../../protocols/errors.ts';
import { HistoryError, serializeError, toHistoryError } from '../../protocols/errors.ts';
import type { MigrationPass, MigrationPhase, MigrationProgress, TailBatch } from '../../protocols/migration.ts';
import type { Limits } from '../config/limits.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { diskFull, isDiskFull } from '../store/store-errors.ts';
import type { Db } from '../store/open.ts';
import { openLegacyReader } from '../store/read-path.ts';
import { copyPass, snapshotVerifyPass, verifyPass } from './chunk-passes.ts';
import type { ChunkEvent, PassContext, UnitEvent } from './context.ts';
import { step } from './context.ts';
import { MigrationGate } from './gate.ts';
import { assertSameTables, buildManifest, emptyManifest } from './manifest.ts';
import type { MigrationRow } from './migration-row.ts';
import { failureOf, manifestOf, readMigrationRow, writeMigrationRow } from './migration-row.ts';
import { LiveStats } from './live-stats.ts';
import { IoPacer } from './pacer.ts';
import type { TableState } from './progress-db.ts';
import { openProgressFile, ProgressStore } from './progress-db.ts';
import { snapshotPass } from './snapshot-pass.ts';
import { ensureSnapshotFiles, locateSnapshot, newSnapshotPath, openMigrationReader, progressPathOf } from './snapshot-files.ts';
import { readRetryRequest } from './retry.ts';
import { bridgeHasLegacyTables, emptyProgress, summarize } from './status.ts';
import { replayTailBatch } from './tail-replay.ts';

/** Error codes that mean the data disagrees: latched until an explicit retry. */
const LATCHING = new Set(['VERIFY_FAILED', 'APPEND_ONLY', 'SCHEMA_TOO_NEW']);

export function latches(error: HistoryErrorShape): boolean {
  return LATCHING.has(error.code);
}

export interface RunnerOptions {
  readonly paths: HistoryPaths;
  /** The history.db writer connection (the history actor's; we hold the writer lock). */
  readonly history: Db;
  readonly limits: Limits;
  /** Pace for the next chunk in bytes per second; null = unpaced. */
  readonly rate: () => number | null;
  /** Tries before a transient error is thrown out of run() (Infinity: keep retrying, as a service does). */
  readonly transientAttempts: number;
  /** Every finished chunk (benchmarks, test drivers). */
  readonly onChunk?: (event: ChunkEvent) => void;
  /** Every finished unit (chunks sharing a commit), after its commit. */
  readonly onUnit?: (event: UnitEvent) => void;
  /** config.json `history.ingest: false`: the migration holds still like the rest of the worker. */
  readonly switchedOff?: () => boolean;
}

export class MigrationRunner {
  readonly gate: MigrationGate;
  private readonly pacer: IoPacer;
  private readonly ctx: PassContext;
  private phase: MigrationPhase = 'starting';
  private pass: MigrationPass | null = null;
  private tables: readonly TableState[] = [];
  private readonly stats = new LiveStats();
  private error: HistoryErrorShape | null = null;
  private retrying = false;
  private snapshot: string | null = null;
  private sourceReleased = false;
  private readonly tail = { replayed: 0, remapped: 0, conflict: null as HistoryErrorShape | null };

  constructor(private readonly options: RunnerOptions) {
    const { limits } = options;
    this.gate = new MigrationGate({ releaseAfterMs: limits.migrationReleaseAfterMs, pollMs: limits.migrationPausePollMs, switchedOff: options.switchedOff });
    this.pacer = new IoPacer(options.rate, limits.migrationIoBurstMs);
    this.ctx = {
      history: options.history,
      bounds: { rows: limits.migrationChunkRows, bytes: limits.migrationChunkBytes, ms: limits.migrationChunkMs },
      unitMs: limits.migrationUnitMs,
      mergePages: limits.ftsMergePages,
      gate: this.gate,
      pacer: this.pacer,
      commitMs: new Map(),
      onChunk: (event) => {
        this.stats.chunk(event, this.pass);
        options.onChunk?.(event);
      },
      onUnit: (event) => {
        this.stats.unit(event);
        options.onUnit?.(event);
      },
      onPass: (pass, tables) => {
        this.phase = pass;
        this.pass = pass;
        this.tables = tables;
        this.stats.passRows = 0;
      },
    };
  }

  setPressure(active: boolean): void {
    this.gate.setPressure(active);
  }

  stop(): void {
    this.gate.stop();
  }

  progress(): MigrationProgress {
    const totals = this.pass === null ? null : summarize(this.tables, this.pass, this.stats.passRows);
    const settled = this.phase === 'failed' || this.phase === 'verified';
    const paused = !settled && (this.gate.paused !== null || this.retrying);
    let etaSeconds: number | null = this.phase === 'verified' ? 0 : null;
    if (totals !== null && this.pass !== null && !settled) etaSeconds = this.stats.etaSeconds(totals, this.pass);
    return emptyProgress(paused ? 'paused' : this.phase, {
      pass: this.phase === 'verified' ? null : this.pass,
      percent: this.phase === 'verified' ? 100 : (totals?.percent ?? 0),
      etaSeconds,
      rowsDone: totals?.rowsDone ?? 0,
      rowsTotal: totals?.rowsTotal ?? 0,
      ioBytesPerSecond: this.pacer.measured(),
      ioLimitBytesPerSecond: this.pacer.limit,
      ioBytes: this.pacer.bytes,
      chunkMs: this.stats.chunkMs(),
      pausedBy: this.retrying ? 'retry' : this.gate.paused,
      sourceReleased: this.sourceReleased,
      snapshot: this.snapshot,
      error: this.error,
      tail: { ...this.tail },
    });
  }

  /**
   * Run or resume until verified, or until a failure is (or already was)
   * latched. Resolves with the final progress; rejects only when a transient
   * error outlasted `transientAttempts`. A stop resolves with the progress so far.
   */
  async run(): Promise<MigrationProgress> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.attempt();
        this.retrying = false;
        return this.progress();
      } catch (error) {
        let shape = serializeError(isDiskFull(error) ? diskFull(this.options.paths.bridgeHome, error, 'the migration') : error);
        this.retrying = false;
        if (shape.code === 'STOPPED' || this.gate.stopping) return this.progress();
        if (latches(shape)) {
          try {
            this.latch(shape);
            return this.progress();
          } catch (latchError) {
            // Could not record the failure (a busy store): retry; the disagreement will be met again.
            shape = serializeError(latchError);
          }
        }
        this.error = shape;
        if (attempt >= this.options.transientAttempts) throw toHistoryError(error, 'migrate legacy history');
        this.retrying = true;
        await this.gate.sleep(this.options.limits.cooldownMs);
        if (this.gate.stopping) return this.progress();
      }
    }
  }

  private latch(error: HistoryErrorShape): void {
    const row = readMigrationRow(this.options.history);
    this.error = error;
    this.phase = 'failed';
    if (row === null || row.status === 'failed' || row.status === 'verified') return;
    writeMigrationRow(this.options.history, {
      status: 'failed',
      snapshot: row.snapshot,
      manifest: { error, resumeStatus: row.status, pass: this.pass, previous: manifestOf(row), staleRetry: readRetryRequest(this.options.paths), at: Date.now() },
    });
  }

  private async attempt(): Promise<void> {
    const { history, paths } = this.options;
    let row = readMigrationRow(history);
    this.snapshot = row?.snapshot ?? null;
    if (row?.status === 'verified') {
      this.phase = 'verified';
      return;
    }
    const failure = failureOf(row);
    this.error = null;
    if (row?.status === 'failed') {
      this.phase = 'failed';
      this.error = failure?.error ?? { name: 'HistoryError', code: 'VERIFY_FAILED', message: 'the migration failed earlier' };
      return;
    }
    if (row === null) {
      if (!bridgeHasLegacyTables(this.options.paths)) {
        writeMigrationRow(history, { status: 'verified', snapshot: null, manifest: emptyManifest() });
        this.phase = 'verified';
        return;
      }
      const snapshot = newSnapshotPath(paths);
      ensureSnapshotFiles(paths, snapshot);
      row = { status: 'snapshotting', snapshot, manifest: null };
      writeMigrationRow(history, row);
      this.snapshot = snapshot;
    }
    await this.passes(row);
  }

  private async passes(row: MigrationRow): Promise<void> {
    const snapshot = locateSnapshot(this.options.paths, row.snapshot);
    if (snapshot === null) {
      throw new HistoryError('VERIFY_FAILED', `the migration snapshot ${row.snapshot ?? '(none)'} or its progress database is missing; a started migration never starts over by itself`, {
        path: row.snapshot ?? undefined,
      });
    }
    this.snapshot = snapshot;
    let phase = this.readPhase(snapshot);
    if (phase === 'snapshot') {
      this.phase = 'snapshot';
      await snapshotPass(this.ctx, { bridgeDb: this.options.paths.bridgeDb, snapshot }, { onView: (pinned) => (this.sourceReleased = !pinned) });
      phase = 'snapshot-verify';
    }
    const progressDb = openProgressFile(progressPathOf(snapshot), { journal: 'wal' });
    const snapshotDb = openMigrationReader(snapshot);
    try {
      const progress = new ProgressStore(progressDb);
      if (snapshotDb === null) throw new HistoryError('VERIFY_FAILED', `the migration snapshot ${snapshot} is missing`, { path: snapshot });
      if (phase === 'snapshot-verify') {
        await snapshotVerifyPass(this.ctx, progress, snapshotDb);
        progressDb.transaction(() => progress.setPhase('copy')).immediate();
        phase = 'copy';
      }
      // The row follows the progress phase (a crash may have come between the two).
      if (row.status !== 'copying') writeMigrationRow(this.options.history, { status: 'copying', snapshot, manifest: buildManifest(progress, 'snapshot-verify') });
      if (phase === 'copy') {
        await copyPass(this.ctx, progress, snapshotDb, snapshot);
        progressDb.transaction(() => progress.setPhase('verify')).immediate();
        phase = 'verify';
      }
      if (phase === 'verify') await verifyPass(this.ctx, progress);
      this.finish(progress, snapshot);
      progressDb.transaction(() => progress.setPhase('verified')).immediate();
    } finally {
      snapshotDb?.close();
      progressDb.close();
    }
  }

  private readPhase(snapshot: string): ReturnType<ProgressStore['phase']> {
    const db = openProgressFile(progressPathOf(snapshot));
    try {
      return new ProgressStore(db).phase();
    } finally {
      db.close();
    }
  }

  /** history.db matches the snapshot table by table: record the manifest and switch readers over. */
  private finish(progress: ProgressStore, snapshot: string): void {
    const copied = buildManifest(progress, 'verify');
    assertSameTables(buildManifest(progress, 'snapshot-verify'), copied);
    writeMigrationRow(this.options.history, { status: 'verified', snapshot, manifest: copied });
    this.phase = 'verified';
    this.pass = null;
    this.error = null;
  }

  /** Copy one bounded batch of legacy records appended after the snapshot (verified homes only). */
  async replayTail(): Promise<TailBatch> {
    if (this.phase !== 'verified') return { replayed: 0, remapped: 0, more: false };
    const manifest = manifestOf(readMigrationRow(this.options.history));
    const highWater = manifest?.recordsHighWater == null ? null : BigInt(manifest.recordsHighWater);
    const bridge = openLegacyReader(this.options.paths.bridgeDb);
    if (bridge === null) return { replayed: 0, remapped: 0, more: false };
    try {
      const batch = await step(this.ctx, { kind: 'tail', table: 'conversation_records', pinned: false }, () => {
        const result = replayTailBatch(this.options.history, bridge, highWater, this.ctx.bounds);
        return { ...result, rows: result.replayed };
      });
      this.tail.replayed += batch.replayed;
      this.tail.remapped += batch.remapped;
      this.tail.conflict = batch.conflict;
      return { replayed: batch.replayed, remapped: batch.remapped, more: batch.more };
    } finally {
      bridge.close();
    }
  }
}
