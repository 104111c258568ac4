// The ingestion loop (the scheduler actor's domain). Each turn:
//   gate      pressure, the config switch or a cooldown pause here;
//   discover  one bounded discovery step when a pass is due or running (a
//             serve run's later passes are background work: several steps
//             per idle turn, and they do not keep the loop busy);
//   poll      stat dirty (watched) files, then a bounded round-robin slice;
//   batch     up to two file sources (read ahead and parsed in the pool) and
//             one unit of work from each record provider, in one commit,
//             sent to the writer thread: the next batch's files are read and
//             parsed while it commits, and it is sent before the batch ahead
//             of it settled (limits.batchesInFlight), so the writer thread
//             always has the next commit queued;
//   reindex   one bounded step of a reindex in progress;
//   mirror    after a real timer yield, one bounded step of the project
//             replicas (outside every capture transaction); while capture has
//             a backlog, mirror steps take at most limits.mirrorCaptureShare
//             of the loop's recent wall time (capture first: the replicas
//             catch up when capture does);
//   wait      100 ms while a backlog remains (none at pace max), 2 s when idle.
// Invariants: source reads and project lookups happen before the commit, never
// inside it; a cursor in memory only moves after the history actor committed
// it, and a source with chunks in flight gets no new lane until they settle
// (FileSources.settled); a provider gives its next unit only once none of its
// units is in flight; batches settle in the order sent, and when one fails,
// every batch sent after it is settled with it (the writer thread refuses a
// chunk that does not continue its source's committed cursor, so what was
// read past the gap is given up, and what did not depend on it commits); any
// failure leaves committed state as it was and is retried.

import type { HistoryErrorShape } from '../../protocols/errors.ts';
import { classify, deserializeError, serializeError, toHistoryError } from '../../protocols/errors.ts';
import type { CommitChunk, CommitResult, HistoryAsk, HistorySend, Timed } from '../../protocols/history.ts';
import type { ParsedChunk, ParseTask } from '../../protocols/records.ts';
import type { Pace, PauseReason, ScrubStatus, SourceProblem } from '../../protocols/service.ts';
import type { Limits } from '../config/limits.ts';
import type { HistorySettings } from '../config/settings.ts';
import { isCorruption } from '../store/store-errors.ts';
import { FileSources, type ActiveLane, type DiscoveryPort } from './file-sources.ts';
import { CaptureMeter } from './capture-meter.ts';
import { LatencyWindow } from './latency.ts';
import type { RecordProvider } from './provider.ts';
import type { RowBatch } from '../../protocols/rows.ts';
import { Reindexer } from './reindexer.ts';
import { Scrubber } from './scrubber.ts';
import type { ScrubConfig } from '../config/scrub-config.ts';
import { TimeShare } from './time-share.ts';

export type { DiscoveryPort } from './file-sources.ts';

/** Tries a once run gives a batch that found the disk full before it gives up (a cooldown apart). */
const ONCE_FULL_TRIES = 3;

export interface SchedulerPorts {
  /** Synchronous asks; each reply reflects everything sent before it. */
  readonly history: HistoryAsk;
  /** The batch path: commits and merge steps, answered later (the writer thread works meanwhile). */
  readonly send: HistorySend;
  /** Non-file sources (OpenCode, bridge records): one unit of work each per batch. */
  readonly providers: readonly RecordProvider[];
  readonly parse: (task: ParseTask) => Promise<ParsedChunk>;
  readonly discovery: DiscoveryPort;
  /** The history switches of config.json (its problems are reported in status.config, not here). */
  readonly settings: () => HistorySettings;
  readonly resolveProject: (cwd: string) => Promise<string>;
  /** The newest reindex request (epoch ms) made by `agent-bridge reindex`, or null. */
  readonly reindexRequest: () => number | null;
  /** One bounded step of the project mirrors; resolves whether mirror work remains (absent: no mirrors). */
  readonly mirror?: () => Promise<boolean>;
  /** Once per turn, after the batch was sent: the WAL checkpointer (src/store/checkpointer.ts); `idle` when nothing is left to capture. */
  readonly checkpoint?: (idle: boolean) => void;
}

export interface SchedulerOptions {
  readonly limits: Limits;
  readonly pace: Pace;
  readonly mode: 'serve' | 'once';
  /** Start by rebuilding derived search data from retained records. */
  readonly reindex?: boolean;
  /** The scrubber's pace and sweep interval (src/config/scrub-config.ts). */
  readonly scrub: ScrubConfig;
  /** Once mode: before exiting, compare every captured prefix with its file (one full scrub sweep, unpaced). */
  readonly verify?: boolean;
  readonly now?: () => number;
}

/** Bytes an unpaced scrub step (ingest --once --verify) compares before the loop looks at other work again. */
const VERIFY_STEP_BYTES = 64 * 1024 * 1024;

/** One batch's work: what it commits, and the lanes it read. */
interface Work {
  readonly chunks: CommitChunk[];
  readonly rows: RowBatch[];
  readonly lanes: ActiveLane[];
}

/**
 * A batch sent to the writer thread, its commit not yet settled. Its chunks'
 * bytes went with it (a commit transfers them, protocols/history.ts): what
 * the settling needs of them is counted before the send.
 */
interface InFlight {
  readonly work: Work;
  readonly fileBytes: number;
  readonly reply: Promise<Timed<CommitResult>>;
  /** The writer thread answered (the reply settles without waiting). */
  answered: boolean;
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
  private scrubber: Scrubber | null = null;
  /** Batches sent and not yet settled, oldest first (at most limits.batchesInFlight). */
  private readonly inFlight: InFlight[] = [];
  /** A merge step sent behind a batch in flight; its failure is raised at the next merge. */
  private mergeFailure: unknown = null;
  private pressure = false;
  private cooldownUntil = 0;
  private stopping = false;
  private wake: (() => void) | null = null;
  private handledRequest = 0;
  private fullRetries = 0;
  readonly reindexer: Reindexer;
  private readonly now: () => number;
  readonly latency = new LatencyWindow(1000);
  /** File bytes committed over time: the backlog's rate, percentage and ETA. */
  readonly meter = new CaptureMeter();
  private readonly mirrorShare: TimeShare;
  /** What the last mirror step said about its backlog. */
  private mirrorMore = true;
  readonly totals: SchedulerTotals = { batches: 0, records: 0, documents: 0, rawBytes: 0, malformed: 0 };
  lastError: HistoryErrorShape | null = null;
  phase: 'starting' | 'ingesting' | 'idle' | 'paused' | 'stopped' = 'starting';

  constructor(
    private readonly ports: SchedulerPorts,
    private readonly options: SchedulerOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.reindexer = new Reindexer(ports);
    this.mirrorShare = new TimeShare(options.limits.mirrorCaptureShare);
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
    if (!this.ports.settings().ingest) reasons.push('config');
    if (this.now() < this.cooldownUntil) reasons.push(this.lastError?.code === 'STORE_FULL' ? 'disk-full' : 'cooldown');
    return reasons;
  }

  // ---- the loop -----------------------------------------------------------

  /** Runs until stopped (serve) or until no work remains (once). */
  async run(): Promise<void> {
    const files = new FileSources(this.ports, { limits: this.options.limits, settled: this.settled, now: this.now, mode: this.options.mode });
    this.files = files;
    const scrubber = new Scrubber(
      { history: this.ports.history, ids: () => files.scrubIds(), target: (id) => files.scrubTarget(id), restart: (id) => files.restartGeneration(id) },
      this.options.limits,
      this.options.scrub,
    );
    this.scrubber = scrubber;
    if (this.options.verify === true) scrubber.beginSweep(this.now());
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
        // Work remains for the loop (it turns again soon) / for capture itself (the phase says 'ingesting').
        let backlog = false;
        let capturing = false;
        try {
          // After a turn with nothing to capture, a background pass walks several steps and the loop sleeps the idle interval.
          await files.discover(this.phase === 'idle' && files.backgroundPasses ? limits.discoveryIdleSteps : 1);
          await files.poll();
          backlog = await this.batch();
          capturing = backlog; // kept when a later step of this turn fails
          // While the writer thread commits the batch just sent (or, with nothing left to capture, at rest).
          this.ports.checkpoint?.(!backlog);
          backlog = (await this.reindex()) || backlog;
          // history.db's FTS5 index merges here, in bounded steps, not inside the batches' commits, and
          // lazily while capture (or a first discovery pass) has more to write (src/store/fts-merge.ts).
          capturing = backlog || files.busyPass || this.hasPending();
          backlog = (await this.merge(capturing)) || backlog;
          backlog = (await this.mirror(backlog)) || backlog;
        } catch (error) {
          this.fail(error);
          // A damaged history.db: nothing more can be written until `agent-bridge recover`.
          if (this.lastError?.code === 'STORE_CORRUPT') break;
        }
        capturing ||= files.busyPass || this.hasPending();
        backlog ||= capturing;
        // The phase is capture's: index merges and the project replicas go on after it (a replica rebuild at the
        // specification's pace can take many minutes), and status reports the replicas' progress of their own.
        this.phase = capturing ? 'ingesting' : 'idle';
        const caughtUp = !backlog && files.passesSinceStart > 0 && this.lastError === null;
        if (this.options.mode === 'once' && caughtUp) {
          if (this.options.verify !== true || scrubber.sweptSinceBegin) break;
          await this.scrub(() => scrubber.step(this.now(), VERIFY_STEP_BYTES));
          continue;
        }
        if (!backlog) await this.scrub(() => scrubber.idle(this.now()));
        // Nobody waits out a cooldown in a once run: anything but a retryable error ends it
        // (a full disk after a few tries: space may come back soon, as it does for a service).
        if (this.options.mode === 'once' && this.lastError !== null && classify(this.lastError) !== 'retry') {
          if (this.lastError.code !== 'STORE_FULL' || ++this.fullRetries >= ONCE_FULL_TRIES) break;
        }
        this.lastError = this.lastError !== null && this.now() < this.cooldownUntil ? this.lastError : null;
        await this.sleep(backlog ? (this.options.pace === 'max' ? 0 : limits.backlogIntervalMs) : limits.idlePollMs);
      }
    } finally {
      // The batches in flight commit or fail before their lanes close.
      await this.settleUntil(0).catch(() => undefined);
      try {
        scrubber.flush(this.now());
      } catch {
        // what was verified since the last save is verified again
      }
      await files.closeAll();
      for (const provider of this.ports.providers) await provider.close().catch(() => undefined);
      this.phase = 'stopped';
    }
    if ((this.options.mode === 'once' || this.lastError?.code === 'STORE_CORRUPT') && this.lastError !== null) throw deserializeError(this.lastError);
  }

  /** A scrub step; its failure is reported like a batch's and retried. */
  private async scrub(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      this.fail(toHistoryError(error, 'scrub'));
    }
  }

  scrubStatus(): ScrubStatus | null {
    return this.scrubber?.status() ?? null;
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
      if (current === null && (done === null || requested > done)) {
        history({ type: 'beginReindex', requestedAt: requested });
        this.reindexer.begun();
      }
    }
    return this.reindexer.step();
  }

  /**
   * One bounded merge step of history.db's FTS5 index. Behind a batch in
   * flight it is sent and not waited for (the loop comes back anyway, and
   * the writer thread merges while the next batch is read); otherwise its
   * answer, whether merge work may remain, is the loop's.
   */
  private async merge(capturing: boolean): Promise<boolean> {
    this.raiseMergeFailure();
    const { limits } = this.options;
    const step = this.ports.send({ type: 'mergeIndex', pages: limits.captureMergePages, budgetMs: limits.ftsMergeMs, backlog: capturing });
    if (this.inFlight.length === 0) {
      const more = (await step).value;
      // A step sent earlier failed before this one answered (replies come in send order): not left unsaid.
      this.raiseMergeFailure();
      return more;
    }
    step.catch((error: unknown) => (this.mergeFailure ??= error));
    return true;
  }

  /** Throw (once) the failure of a merge step that was sent without waiting. */
  private raiseMergeFailure(): void {
    const failure = this.mergeFailure;
    this.mergeFailure = null;
    if (failure !== null) throw failure;
  }

  /**
   * One mirror step after a real timer yield, so queued messages and timers
   * run between it and the batch; skipped while capture is busy and the
   * mirror has had its share (its backlog still counts).
   */
  private async mirror(captureBusy: boolean): Promise<boolean> {
    const step = this.ports.mirror;
    if (step === undefined) return false;
    if (!this.mirrorShare.allowed() && captureBusy) return this.mirrorMore;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    if (this.stopping) return false;
    const started = performance.now();
    this.mirrorMore = await step();
    this.mirrorShare.spend(performance.now() - started);
    return this.mirrorMore;
  }

  private settled = (mtimeMs: number): boolean =>
    this.options.mode === 'once' || this.now() - mtimeMs >= this.options.limits.settleMs;

  /** A discovery pass is walking the roots (before the loop runs, one is about to). */
  get discovering(): boolean {
    return this.files?.discoveryRunning ?? true;
  }

  get lastPassAt(): number | null {
    return this.files?.lastPassAt ?? null;
  }

  pendingCount(): number {
    return (this.files?.pendingCount() ?? 0) + this.ports.providers.filter((p) => p.backlog).length;
  }

  /** pendingCount() > 0, without a scan of every source while one is pending (the loop asks it every turn). */
  hasPending(): boolean {
    return (this.files?.hasPending() ?? false) || this.ports.providers.some((p) => p.backlog);
  }

  goneCount(): number {
    return this.files?.goneCount() ?? 0;
  }

  backlogBytes(): number {
    return this.files?.backlogBytes() ?? 0;
  }

  // ---- batches --------------------------------------------------------------

  /**
   * One unit of work from every provider that has some and none in flight (a
   * unit continues from its provider's committed state; a failing provider is
   * skipped and reports its problem).
   */
  private async providerRows(): Promise<RowBatch[]> {
    const rows: RowBatch[] = [];
    const busy = new Set(this.inFlight.flatMap((flight) => flight.work.rows.map((batch) => batch.provider)));
    for (const provider of this.ports.providers) {
      if (busy.has(provider.name)) continue;
      try {
        const batch = await provider.next();
        if (batch !== null) rows.push(batch);
      } catch (error) {
        if (isCorruption(error)) throw error; // history.db itself, not the provider's source
        this.lastError = serializeError(toHistoryError(error, `read ${provider.name}`));
      }
    }
    return rows;
  }

  /**
   * One batch: the next file chunks are gathered (read and parsed) while the
   * batches in flight commit; those that were answered settle, and the
   * oldest is waited for while the writer thread holds as many as it may;
   * then the providers give their units, and the new batch is sent. Returns
   * whether a backlog remains.
   */
  private async batch(): Promise<boolean> {
    const files = this.files as FileSources;
    const gathered = { ...(await files.gather()), rows: [] };
    let settled: 'done' | 'busy' | 'failed' = 'failed';
    try {
      settled = await this.settleUntil(this.options.limits.batchesInFlight - 1);
    } finally {
      // A batch in flight was given up: what was gathered behind it read past its cursors, so it goes with it.
      if (settled !== 'done') await this.abandon(gathered);
    }
    if (settled === 'busy') return true;
    const work = { ...gathered, rows: await this.providerRows() };
    if (work.chunks.length === 0 && work.rows.length === 0) {
      await files.afterBatch(work.lanes);
    } else {
      let fileBytes = 0;
      for (const chunk of work.chunks) fileBytes += chunk.bytes.length;
      const flight: InFlight = { work, fileBytes, reply: this.ports.send({ type: 'commit', chunks: work.chunks, rows: work.rows }), answered: false };
      // Settled (and a failure handled) by a later settleUntil().
      flight.reply.then(
        () => (flight.answered = true),
        () => (flight.answered = true),
      );
      this.inFlight.push(flight);
    }
    return this.inFlight.length > 0 || files.activeLanes > 0 || this.ports.providers.some((p) => p.backlog);
  }

  /**
   * Settle batches in flight, oldest first: every one already answered, and
   * more (waiting for them) until at most `keep` remain. On success a batch's
   * cursors move and its lanes had their turn. When one fails, every batch
   * sent after it is settled too, whatever it takes: their chunks that
   * continue its chunks fail at the writer thread, the rest commit and are
   * taken as committed. The failed batches' work is given up (lanes closed,
   * to read again from the committed cursors; provider units abandoned):
   * when the store was busy, to be read and sent again ('busy', a retryable
   * error, so no cooldown), else the first failure is thrown. A busy batch
   * is not resent as it was: its bytes went to the writer thread with it.
   */
  private async settleUntil(keep: number): Promise<'done' | 'busy'> {
    while (this.inFlight.length > keep || this.inFlight[0]?.answered === true) {
      const failed = await this.settleOldest();
      if (failed === null) continue;
      // Every batch sent after it, committed or given up as each turned out (their failures follow from this one).
      while (this.inFlight.length > 0) await this.settleOldest();
      const shape = serializeError(failed.error);
      if (shape.code !== 'STORE_BUSY') throw failed.error;
      this.lastError = shape;
      return 'busy';
    }
    return 'done';
  }

  /** Wait for the oldest batch in flight and take it as committed, or give its work up and return its error. */
  private async settleOldest(): Promise<{ readonly error: unknown } | null> {
    const flight = this.inFlight.shift() as InFlight;
    let reply: Timed<CommitResult>;
    try {
      reply = await flight.reply;
    } catch (error) {
      await this.abandon(flight.work);
      return { error };
    }
    await this.committed(flight, reply);
    return null;
  }

  /** A batch committed: its cursors move, its provider units apply, its lanes had their turn. */
  private async committed(flight: InFlight, reply: Timed<CommitResult>): Promise<void> {
    const files = this.files as FileSources;
    const { work } = flight;
    const result = reply.value;
    this.latency.add(reply.ms);
    this.meter.captured(flight.fileBytes, this.now());
    this.totals.batches++;
    this.totals.records += result.records;
    this.totals.documents += result.documents;
    this.totals.rawBytes += result.rawBytes;
    this.totals.malformed += result.malformed;
    files.committed(result.cursors);
    files.settled(work.chunks);
    for (const batch of work.rows) this.providerOf(batch).committed(batch);
    await files.afterBatch(work.lanes);
  }

  /** Give up a batch that will not be committed: its provider units are abandoned and its lanes closed (reopened from the committed cursors). */
  private async abandon(work: Work): Promise<void> {
    const files = this.files as FileSources;
    files.settled(work.chunks);
    for (const batch of work.rows) this.providerOf(batch).abandoned(batch);
    await files.closeLanes(work.lanes);
  }

  private providerOf(batch: RowBatch): RecordProvider {
    const provider = this.ports.providers.find((p) => p.name === batch.provider);
    if (provider === undefined) throw new Error(`no provider named ${batch.provider}`);
    return provider;
  }

  problems(): SourceProblem[] {
    const list: SourceProblem[] = [];
    for (const provider of this.ports.providers) list.push(...provider.problems());
    list.push(...(this.files?.problems() ?? []));
    return list;
  }
}
