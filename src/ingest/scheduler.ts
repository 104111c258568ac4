// The ingestion loop (the scheduler actor's domain). Each turn:
//   gate      pressure, the config switch or a cooldown pause here;
//   discover  one bounded discovery step when a pass is due or running;
//   poll      stat dirty (watched) files, then a bounded round-robin slice;
//   batch     up to two sources, read ahead and parsed in the pool, one commit;
//   wait      100 ms while a backlog remains (none at pace max), 2 s when idle.
// Invariants: source reads and project lookups happen before the commit, never
// inside it; a cursor in memory only moves after the history actor committed
// it; any failure leaves committed state as it was and is retried.

import type { HistoryErrorShape } from '../../protocols/errors.ts';
import { classify, serializeError, toHistoryError } from '../../protocols/errors.ts';
import type { HistoryMessage, HistoryReplies } from '../../protocols/history.ts';
import type { ParseResult, ParseTask } from '../../protocols/records.ts';
import type { Pace, PauseReason, SourceProblem } from '../../protocols/service.ts';
import type { Limits } from '../config/limits.ts';
import type { HistorySettings } from '../config/settings.ts';
import type { StepResult, Found } from '../sources/discovery.ts';
import type { SourcePlan } from '../sources/source-module.ts';
import type { CommitChunk, CommitResult } from '../store/commit.ts';
import { collectBatch, toCommitChunks } from './batcher.ts';
import { Lane, type LaneDeps } from './lane.ts';
import { LatencyWindow } from './latency.ts';
import { observe } from './observe.ts';
import { Reindexer } from './reindexer.ts';
import type { RecordProvider, RowBatch } from './provider.ts';
import { SourceTable, type SourceState } from './source-table.ts';

export type HistoryAsk = <T extends HistoryMessage>(message: T) => HistoryReplies[T['type']];

export interface DiscoveryPort {
  step(): Promise<StepResult>;
  /** The root and module a path belongs to, or null (outside every root, or a link). */
  locate(path: string): Promise<Found | null>;
  classify(found: Found): Promise<SourcePlan | null>;
  readonly passes: number;
  readonly refusedLinks: number;
}

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

interface ActiveLane {
  readonly lane: Lane;
  readonly state: SourceState;
  batches: number;
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
  private table: SourceTable | null = null;
  private readonly lanes = new Map<string, ActiveLane>();
  private readonly dirtyPaths = new Set<string>();
  private retry: Work | null = null;
  private pressure = false;
  private cooldownUntil = 0;
  private stopping = false;
  private wake: (() => void) | null = null;
  private discoveryDueAt = 0;
  private discoveryRunning = false;
  private passesSinceStart = 0;
  private pollIndex = 0;
  private handledRequest = 0;
  readonly reindexer: Reindexer;
  private readonly now: () => number;
  readonly latency = new LatencyWindow(1000);
  readonly totals: SchedulerTotals = { batches: 0, records: 0, documents: 0, rawBytes: 0, malformed: 0 };
  lastPassAt: number | null = null;
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
    if (this.dirtyPaths.size < this.options.limits.watchDirtyMax) this.dirtyPaths.add(path);
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
    this.table = new SourceTable(this.ports.history({ type: 'loadSources' }));
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
          await this.discover();
          await this.poll();
          backlog = await this.batch();
          backlog = (await this.reindex()) || backlog;
        } catch (error) {
          this.fail(error);
        }
        backlog ||= this.discoveryRunning || this.pendingCount() > 0;
        this.phase = backlog ? 'ingesting' : 'idle';
        if (this.options.mode === 'once' && !backlog && this.passesSinceStart > 0 && this.lastError === null) break;
        // Nobody waits out a cooldown in a once run: anything but a retryable error ends it.
        if (this.options.mode === 'once' && this.lastError !== null && classify(this.lastError) !== 'retry') break;
        this.lastError = this.lastError !== null && this.now() < this.cooldownUntil ? this.lastError : null;
        await this.sleep(backlog ? (this.options.pace === 'max' ? 0 : limits.backlogIntervalMs) : limits.idlePollMs);
      }
    } finally {
      await this.closeLanes([...this.lanes.values()]);
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

  // ---- discovery and polling ---------------------------------------------

  private async discover(): Promise<void> {
    if (!this.discoveryRunning && this.now() < this.discoveryDueAt) return;
    this.discoveryRunning = true;
    const step = await this.ports.discovery.step();
    await this.admit(step.files);
    if (step.passComplete) {
      this.discoveryRunning = false;
      this.passesSinceStart++;
      this.lastPassAt = this.now();
      this.discoveryDueAt = this.now() + this.options.limits.discoveryRevisitMs;
    }
  }

  /** Observe found files; classify and register the new ones. */
  private async admit(files: readonly Found[]): Promise<void> {
    const table = this.table as SourceTable;
    const plans: SourcePlan[] = [];
    for (const found of files) {
      const known = table.byPathGet(found.path);
      if (known !== undefined) {
        table.observe(known, ...(await observe(found.path)));
        continue;
      }
      let plan: SourcePlan | null;
      try {
        plan = await this.ports.discovery.classify(found);
      } catch {
        plan = null; // unreadable header: rediscovered next pass
      }
      if (plan !== null) plans.push(await this.resolveMove(plan));
    }
    if (plans.length === 0) return;
    this.ports.history({ type: 'register', plans });
    for (const plan of plans) {
      const state = table.activate(plan);
      table.observe(state, ...(await observe(plan.path)));
    }
  }

  /** A new path whose identity is a stored source's that is gone from its old path: the file moved. */
  private async resolveMove(plan: SourcePlan): Promise<SourcePlan> {
    const table = this.table as SourceTable;
    const [seen] = await observe(plan.path);
    if (seen === null) return plan;
    const previousId = table.sourceWithIdentity(seen.identity);
    if (previousId === undefined || previousId === plan.id) return plan;
    const previousPath = table.get(previousId)?.plan.path ?? table.storedRow(previousId)?.path;
    if (previousPath === undefined) return plan;
    const [atOldPath] = await observe(previousPath);
    if (atOldPath !== null && atOldPath.identity === seen.identity) return plan; // a hard link: capture both
    this.ports.history({ type: 'move', id: previousId, path: plan.path });
    return { ...plan, id: previousId };
  }

  private async poll(): Promise<void> {
    const table = this.table as SourceTable;
    for (const path of [...this.dirtyPaths]) {
      this.dirtyPaths.delete(path);
      const state = table.byPathGet(path);
      if (state !== undefined) {
        state.dirty = true;
        table.observe(state, ...(await observe(path)));
      } else {
        const found = await this.ports.discovery.locate(path);
        if (found !== null) await this.admit([found]);
      }
    }
    if (this.discoveryRunning || table.size === 0) return;
    const all = [...table.all()];
    const count = Math.min(this.options.limits.pollStatsPerTick, all.length);
    for (let i = 0; i < count; i++) {
      const state = all[(this.pollIndex + i) % all.length] as SourceState;
      if (!this.lanes.has(state.plan.id)) table.observe(state, ...(await observe(state.plan.path)));
    }
    this.pollIndex = (this.pollIndex + count) % all.length;
  }

  private settled = (mtimeMs: number): boolean =>
    this.options.mode === 'once' || this.now() - mtimeMs >= this.options.limits.settleMs;

  private pending(): SourceState[] {
    const table = this.table as SourceTable;
    const list: SourceState[] = [];
    for (const state of table.all()) if (!this.lanes.has(state.plan.id) && table.isPending(state, this.settled)) list.push(state);
    return list.sort((a, b) => Number(b.dirty) - Number(a.dirty) || a.visits - b.visits);
  }

  pendingCount(): number {
    return this.table === null ? 0 : this.pending().length + this.lanes.size + this.ports.providers.filter((p) => p.backlog).length;
  }

  goneCount(): number {
    return this.table?.goneCount(this.passesSinceStart > 0) ?? 0;
  }

  backlogBytes(): number {
    const table = this.table;
    if (table === null) return 0;
    let bytes = 0;
    for (const state of table.all()) bytes += table.backlogBytes(state);
    return bytes;
  }

  // ---- batches --------------------------------------------------------------

  private laneDeps(): LaneDeps {
    return {
      chunkBytes: this.options.limits.chunkBytes,
      readAhead: this.options.limits.readAheadChunks,
      parse: this.ports.parse,
      settled: this.settled,
      retained: (source, generation) => this.ports.history({ type: 'retained', source, generation }),
    };
  }

  /** Give lanes to pending sources up to the per-batch limit. */
  private async openLanes(): Promise<void> {
    const table = this.table as SourceTable;
    const { limits } = this.options;
    const waiting = this.pending();
    // A source that had its turn yields to waiting ones.
    for (const active of [...this.lanes.values()]) {
      if (active.batches >= limits.sourceTurnBatches && waiting.length > 0) await this.closeLanes([active]);
    }
    for (const state of waiting) {
      if (this.lanes.size >= limits.sourcesPerBatch) break;
      state.dirty = false;
      state.visits++;
      try {
        const lane = await Lane.open(
          { id: state.plan.id, path: state.plan.path, format: state.plan.format, cursor: state.cursor, context: {
            conversation: state.plan.conversation.id,
            session: state.plan.conversation.session,
            ownAgentId: state.plan.ownAgentId,
          } },
          this.laneDeps(),
        );
        if (lane.start.touched !== null) {
          this.ports.history({ type: 'touch', id: state.plan.id, facts: lane.start.touched });
          table.committed(state.plan.id, { ...state.cursor, ...lane.start.touched });
        }
        this.lanes.set(state.plan.id, { lane, state, batches: 0 });
      } catch (error) {
        const [seen] = await observe(state.plan.path);
        table.observe(state, seen, serializeError(toHistoryError(error, 'open source')));
      }
    }
  }

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
  private async gather(): Promise<Work> {
    await this.openLanes();
    const lanes = [...this.lanes.values()];
    let chunks: CommitChunk[] = [];
    if (lanes.length > 0) {
      try {
        chunks = await toCommitChunks(await collectBatch(lanes.map((a) => a.lane), this.options.limits), this.ports.resolveProject);
      } catch (error) {
        await this.dropLanes(lanes, error);
      }
    }
    return { chunks, rows: await this.providerRows(), lanes };
  }

  /** One batch. Returns whether a backlog remains. */
  private async batch(): Promise<boolean> {
    const table = this.table as SourceTable;
    const work = this.retry ?? (await this.gather());
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
        await this.closeLanes(work.lanes);
        throw error;
      }
      this.latency.add(performance.now() - started);
      this.totals.batches++;
      this.totals.records += result.records;
      this.totals.documents += result.documents;
      this.totals.rawBytes += result.rawBytes;
      this.totals.malformed += result.malformed;
      for (const [id, cursor] of result.cursors) table.committed(id, cursor);
      for (const batch of work.rows) this.providerOf(batch).committed(batch);
    }
    const finished: ActiveLane[] = [];
    for (const active of work.lanes) {
      active.batches++;
      if (active.lane.exhausted) finished.push(active);
    }
    await this.closeLanes(finished);
    return this.lanes.size > 0 || this.ports.providers.some((p) => p.backlog);
  }

  private providerOf(batch: RowBatch): RecordProvider {
    const provider = this.ports.providers.find((p) => p.name === batch.provider);
    if (provider === undefined) throw new Error(`no provider named ${batch.provider}`);
    return provider;
  }

  private async dropLanes(lanes: ActiveLane[], error: unknown): Promise<void> {
    const table = this.table as SourceTable;
    for (const active of lanes) {
      const failure = active.lane.failure ?? error;
      const [seen] = await observe(active.state.plan.path);
      table.observe(active.state, seen, serializeError(toHistoryError(failure, 'read source')));
    }
    await this.closeLanes(lanes);
  }

  private async closeLanes(lanes: ActiveLane[]): Promise<void> {
    const table = this.table;
    for (const active of lanes) {
      this.lanes.delete(active.state.plan.id);
      await active.lane.close().catch(() => undefined);
      if (table === null) continue;
      const [seen] = await observe(active.state.plan.path);
      table.observe(active.state, seen, active.state.problem);
      // Bytes left behind at the end of a visit are an unfinished last line: wait for it to settle.
      active.state.waitingTail = seen !== null && seen.size > active.state.cursor.offset && active.lane.exhausted ? seen : null;
    }
  }

  problems(): SourceProblem[] {
    const list: SourceProblem[] = [];
    if (this.configProblem !== null) list.push({ path: this.configProblem.path ?? 'config.json', code: this.configProblem.code, message: this.configProblem.message });
    for (const provider of this.ports.providers) list.push(...provider.problems());
    if (this.table === null) return list;
    for (const state of this.table.all()) {
      if (state.problem !== null) list.push({ path: state.plan.path, code: state.problem.code, message: state.problem.message });
    }
    return list;
  }
}
