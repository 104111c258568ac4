// The ingestion loop (the scheduler actor's domain). Each turn:
//   gate      pressure, the config switch or a cooldown pause here;
//   discover  one bounded discovery step when a pass is due or running;
//   poll      stat dirty (watched) files, then a bounded round-robin slice;
//   batch     up to two file sources (read ahead and parsed in the pool) and
//             one unit of work from each record provider, in one commit;
//   reindex   one bounded step of a reindex in progress;
//   wait      100 ms while a backlog remains (none at pace max), 2 s when idle.
// Invariants: source reads and project lookups happen before the commit, never
// inside it; a cursor in memory only moves after the history actor committed
// it; any failure leaves committed state as it was and is retried.

import type { HistoryErrorShape } from '../../protocols/errors.ts';
import { classify, serializeError, toHistoryError } from '../../protocols/errors.ts';
import type { CommitChunk, CommitResult, HistoryAsk } from '../../protocols/history.ts';
import type { ParseResult, ParseTask } from '../../protocols/records.ts';
import type { Pace, PauseReason, SourceProblem } from '../../protocols/service.ts';
import type { Limits } from '../config/limits.ts';
import type { HistorySettings } from '../config/settings.ts';
import { FileSources, type ActiveLane, type DiscoveryPort } from './file-sources.ts';
import { LatencyWindow } from './latency.ts';
import type { RecordProvider } from './provider.ts';
import type { RowBatch } from '../../protocols/rows.ts';
import { Reindexer } from './reindexer.ts';

export type { DiscoveryPort } from './file-sources.ts';

export interface SchedulerPorts {
  readonly history: HistoryAsk;
  /** Non-file sources (OpenCode, bridge records): one unit of work each per batch. */
  readonly providers: readonly RecordProvider[];
  readonly parse: (task: ParseTask) => Promise<ParseResult>;
  readonly discovery: DiscoveryPort;
  readonly settings: () => { settings: HistorySettings; problem: HistoryErrorShape | null };
  readonly resolveProject: (cwd: string) => Promise<string>;
  /** The newest reindex request (epoch ms) made by `agent-bridge reindex`, or null. */
  readonly reindexRequest: () => number | null;
}

export interface SchedulerOptions {
  readonly limits: Limits;
  readonly pace: Pace;
  readonly mode: 'serve' | 'once';
  /** Start by rebuilding derived search data from retained records. */
  readonly reindex?: boolean;
  readonly now?: () => number;
}

/** One batch's work, kept for a retry when the store was busy. */
interface Work {
  readonly chunks: CommitChunk[];
  readonly rows: RowBatch[];
  readonly lanes: ActiveLane[];
}

export interface SchedulerTotals {
  batches: number;
  records: number;
  documents: number;
  rawBytes: number;
  malformed: number;
}

export class Scheduler {
  private files: FileSources | null = null;
  private retry: Work | null = null;
  private pressure = false;
  private cooldownUntil = 0;
  private stopping = false;
  private wake: (() => void) | null = null;
  private handledRequest = 0;
  readonly reindexer: Reindexer;
  private readonly now: () => number;
  readonly latency = new LatencyWindow(1000);
  readonly totals: SchedulerTotals = { batches: 0, records: 0, documents: 0, rawBytes: 0, malformed: 0 };
  lastError: HistoryErrorShape | null = null;
  configProblem: HistoryErrorShape | null = null;
  phase: 'starting' | 'ingesting' | 'idle' | 'paused' | 'stopped' = 'starting';

  constructor(
    private readonly ports: SchedulerPorts,
    private readonly options: SchedulerOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.reindexer = new Reindexer(ports);
  }

  // ---- messages from the supervisor -------------------------------------

  setPressure(active: boolean): void {
    this.pressure = active;
    if (!active) this.interrupt();
  }

  lockError(): void {
    this.cooldownUntil = this.now() + this.options.limits.cooldownMs;
  }

  /** A watched file changed: visit it first. */
  changed(path: string): void {
    this.files?.changed(path);
    if (this.phase === 'idle') this.interrupt();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.interrupt();
  }

  pauseReasons(): PauseReason[] {
    const reasons: PauseReason[] = [];
    if (this.pressure) reasons.push('pressure');
    const { settings, problem } = this.ports.settings();
    this.configProblem = problem;
    if (!settings.ingest) reasons.push('config');
    if (this.now() < this.cooldownUntil) reasons.push('cooldown');
    return reasons;
  }

  // ---- the loop -----------------------------------------------------------

  /** Runs until stopped (serve) or until no work remains (once). */
  async run(): Promise<void> {
    const files = new FileSources(this.ports, { limits: this.options.limits, settled: this.settled, now: this.now });
    this.files = files;
    if (this.options.reindex === true && this.ports.history({ type: 'reindexProgress' }) === null) {
      this.ports.history({ type: 'beginReindex', requestedAt: this.now() });
    }
    const { limits } = this.options;
    try {
      while (!this.stopping) {
        if (this.pauseReasons().length > 0) {
          this.phase = 'paused';
          await this.sleep(this.now() < this.cooldownUntil ? this.cooldownUntil - this.now() : limits.backlogIntervalMs);
          continue;
        }
        let backlog = false;
        try {
          await files.discover();
          await files.poll();
          backlog = await this.batch();
          backlog = (await this.reindex()) || backlog;
        } catch (error) {
          this.fail(error);
        }
        backlog ||= files.discoveryRunning || this.pendingCount() > 0;
        this.phase = backlog ? 'ingesting' : 'idle';
        if (this.options.mode === 'once' && !backlog && files.passesSinceStart > 0 && this.lastError === null) break;
        // Nobody waits out a cooldown in a once run: anything but a retryable error ends it.
        if (this.options.mode === 'once' && this.lastError !== null && classify(this.lastError) !== 'retry') break;
        this.lastError = this.lastError !== null && this.now() < this.cooldownUntil ? this.lastError : null;
        await this.sleep(backlog ? (this.options.pace === 'max' ? 0 : limits.backlogIntervalMs) : limits.idlePollMs);
      }
    } finally {
      await files.closeAll();
      for (const provider of this.ports.providers) await provider.close().catch(() => undefined);
      this.phase = 'stopped';
    }
    if (this.options.mode === 'once' && this.lastError !== null) throw toHistoryError(this.lastError);
  }

  private fail(error: unknown): void {
    const shape = serializeError(error);
    this.lastError = shape;
    if (classify(shape) !== 'retry') this.cooldownUntil = this.now() + this.options.limits.cooldownMs;
  }

  private interrupt(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      let settled = false;
      const done = (): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      // ms = 0 still yields to the event loop so that messages (status, stop) get through.
      const timer = ms > 0 ? setTimeout(done, ms) : undefined;
      if (timer === undefined) setImmediate(done);
      this.wake = done;
    });
  }

  /** Start a requested reindex; run one step of a reindex in progress. Returns whether one is active. */
  private async reindex(): Promise<boolean> {
    const requested = this.ports.reindexRequest();
    if (requested !== null && requested > this.handledRequest) {
      this.handledRequest = requested;
      const history = this.ports.history;
      const current = history({ type: 'reindexProgress' });
      const done = history({ type: 'lastReindex' });
      if (current === null && (done === null || requested > done)) history({ type: 'beginReindex', requestedAt: requested });
    }
    return this.reindexer.step();
  }

  private settled = (mtimeMs: number): boolean =>
    this.options.mode === 'once' || this.now() - mtimeMs >= this.options.limits.settleMs;

  get lastPassAt(): number | null {
    return this.files?.lastPassAt ?? null;
  }

  pendingCount(): number {
    return (this.files?.pendingCount() ?? 0) + this.ports.providers.filter((p) => p.backlog).length;
  }

  goneCount(): number {
    return this.files?.goneCount() ?? 0;
  }

  backlogBytes(): number {
    return this.files?.backlogBytes() ?? 0;
  }

  // ---- batches --------------------------------------------------------------

  /** One unit of work from every provider that has some (a failing provider is skipped and reports its problem). */
  private async providerRows(): Promise<RowBatch[]> {
    const rows: RowBatch[] = [];
    for (const provider of this.ports.providers) {
      try {
        const batch = await provider.next();
        if (batch !== null) rows.push(batch);
      } catch (error) {
        this.lastError = serializeError(toHistoryError(error, `read ${provider.name}`));
      }
    }
    return rows;
  }

  /** Read the next batch: chunks from up to two file lanes and one unit from each provider. */
  private async gather(files: FileSources): Promise<Work> {
    const { chunks, lanes } = await files.gather();
    return { chunks, rows: await this.providerRows(), lanes };
  }

  /** One batch. Returns whether a backlog remains. */
  private async batch(): Promise<boolean> {
    const files = this.files as FileSources;
    const work = this.retry ?? (await this.gather(files));
    this.retry = null;
    if (work.chunks.length > 0 || work.rows.length > 0) {
      let result: CommitResult;
      const started = performance.now();
      try {
        result = this.ports.history({ type: 'commit', chunks: work.chunks, rows: work.rows });
      } catch (error) {
        const shape = serializeError(error);
        if (shape.code === 'STORE_BUSY') {
          this.retry = work;
          this.lastError = shape;
          return true;
        }
        for (const batch of work.rows) this.providerOf(batch).abandoned(batch);
        await files.closeLanes(work.lanes);
        throw error;
      }
      this.latency.add(performance.now() - started);
      this.totals.batches++;
      this.totals.records += result.records;
      this.totals.documents += result.documents;
      this.totals.rawBytes += result.rawBytes;
      this.totals.malformed += result.malformed;
      files.committed(result.cursors);
      for (const batch of work.rows) this.providerOf(batch).committed(batch);
    }
    await files.afterBatch(work.lanes);
    return files.activeLanes > 0 || this.ports.providers.some((p) => p.backlog);
  }

  private providerOf(batch: RowBatch): RecordProvider {
    const provider = this.ports.providers.find((p) => p.name === batch.provider);
    if (provider === undefined) throw new Error(`no provider named ${batch.provider}`);
    return provider;
  }

  problems(): SourceProblem[] {
    const list: SourceProblem[] = [];
    if (this.configProblem !== null) list.push({ path: this.configProblem.path ?? 'config.json', code: this.configProblem.code, message: this.configProblem.message });
    for (const provider of this.ports.providers) list.push(...provider.problems());
    list.push(...(this.files?.problems() ?? []));
    return list;
  }
}
