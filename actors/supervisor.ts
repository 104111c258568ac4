// Supervisor: builds the actors of the history worker and routes messages
// between them and the broker's facade. It owns no domain logic:
//   history    the single writer (HistoryActor), under the writer lock: on
//              this thread's connection while the migration runs, then in the
//              writer thread (WriterClient) once capture starts
//   parser     piscina pool (ParserPool)
//   discovery  walker, header cache, watch (DiscoveryActor)
//   scheduler  the ingestion loop (Scheduler)
//   migrator   legacy bridge.db → history.db migration (MigratorActor)
//   mirror     per-project replicas (MirrorActor), stepped by the scheduler
//              between capture batches; off with AGENT_BRIDGE_HISTORY_MIRRORS=off
// The elected writer first runs the migration (start() never waits for it);
// ingestion starts once history.db holds the verified legacy copy, and so
// continues from the migrated source cursors. A latched migration failure
// keeps ingestion off until `agent-bridge reindex --retry`.
// Stop is an explicit protocol: the migrator and the scheduler reach a safe
// point (between chunks or batches), then every actor stops, even if one of
// them fails to.

import { mkdirSync } from 'node:fs';
import { HistoryError, serializeError, toHistoryError } from '../protocols/errors.ts';
import type { HistoryErrorShape } from '../protocols/errors.ts';
import { CAUGHT_UP } from '../protocols/capture.ts';
import type { MigrationProgress } from '../protocols/migration.ts';
import type { HistoryStatus, OnceSummary, Phase, ServeProgress, StartOptions } from '../protocols/service.ts';
import { LIMITS, type Limits } from '../src/config/limits.ts';
import type { HistoryPaths } from '../src/config/paths.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { ingestEnvDisabled } from '../src/config/ingest-env.ts';
import { SettingsWatcher } from '../src/config/settings.ts';
import { lowerThreadPriority } from '../src/os/thread-priority.ts';
import { ReindexRequests, reindexRequestPath } from '../src/config/reindex-request.ts';
import { scrubConfig } from '../src/config/scrub-config.ts';
import { Scheduler } from '../src/ingest/scheduler.ts';
import { migrationRate } from '../src/migration/pace-config.ts';
import { MigrationRunner } from '../src/migration/runner.ts';
import { emptyProgress } from '../src/migration/status.ts';
import { ProjectResolver } from '../src/project/canonical.ts';
import type { Db } from '../src/store/open.ts';
import { OpenCodeProvider } from '../src/sources/opencode/provider.ts';
import { BridgeProvider } from '../src/bridge/provider.ts';
import { openWriter } from '../src/store/open.ts';
import { StatusPublisher } from '../src/store/status-file.ts';
import type { HistoryAsk, StoreCounts } from '../protocols/history.ts';
import { WriterClient } from '../src/service/writer-client.ts';
import { WriterLock } from '../src/store/writer-lock.ts';
import { WalCheckpointer } from '../src/store/checkpointer.ts';
import { providerAsk } from '../src/service/provider-reads.ts';
import { recoverHome } from '../src/recover/recover.ts';
import { pendingRecover, type RecoverRequest, writeRecoverOutcome } from '../src/recover/requests.ts';
import { fileIdentity } from '../src/config/file-signature.ts';
import { DiscoveryActor } from './discovery-actor.ts';
import { HistoryActor } from './history-actor.ts';
import { MigratorActor } from './migrator-actor.ts';
import { MirrorActor } from './mirror-actor.ts';
import { MirrorSync } from '../src/mirror/mirror-sync.ts';
import { mirrorsDisabled } from '../src/mirror/switch.ts';
import { idleMirrorStatus, type MirrorStatus } from '../protocols/mirror.ts';
import { ParserPool, parserThreads } from './parser-pool.ts';
import type { Reindexer } from '../src/ingest/reindexer.ts';

const STANDBY_RETRY_MS = 2000;
/** history.status.json: what `status`, `health` and the dashboard read; checked every second, written when it changed (see StatusPublisher). */
const STATUS_EVERY_MS = 1000;
const COUNTS_EVERY_MS = 5000;

interface Ingestion {
  /** history.db's writer during capture: commits and merges run on its thread, beside the loop. */
  readonly writer: WriterClient;
  readonly parser: ParserPool;
  readonly discovery: DiscoveryActor;
  readonly scheduler: Scheduler;
  /** null when AGENT_BRIDGE_HISTORY_MIRRORS=off. */
  readonly mirror: MirrorActor | null;
  readonly loop: Promise<void>;
}

interface Running {
  readonly lock: WriterLock;
  readonly history: HistoryActor;
  /** This thread's connection to history.db (the history actor's before capture, the migrator's tail replays, the checkpointer's). */
  readonly db: Db;
  readonly migrator: MigratorActor;
  /** Built once the migration is verified. */
  ingestion: Ingestion | null;
  /** Migration, then ingestion: settles when both are over. */
  readonly done: Promise<void>;
}

export class Supervisor {
  private options: StartOptions | null = null;
  private paths: HistoryPaths | null = null;
  /** The bridge home's config.json (history switches, migration pace); its problems are in status. */
  private settings: SettingsWatcher | null = null;
  private running: Running | null = null;
  private phase: Phase = 'stopped';
  private standbyOwner: number | null = null;
  private standbyTimer: NodeJS.Timeout | null = null;
  private statusTimer: NodeJS.Timeout | null = null;
  private statusPublisher: StatusPublisher | null = null;
  private fatal: HistoryErrorShape | null = null;
  private counts: StoreCounts = { sources: 0, conversations: 0, records: 0, documents: 0, rawBytes: 0 };
  /** The reindex status last read while capture's reindexer was idle, and after how many of its begins. */
  private reindexSeen: { readonly reindexer: Reindexer; readonly begins: number; readonly status: HistoryStatus['reindex'] } | null = null;
  private countsAt = 0;
  private startedAt = 0;
  private finishedResult: Promise<OnceSummary> | null = null;
  /** The stop under way or done (stop() makes it once). */
  private stopped: Promise<void> | null = null;
  private pressureOn = false;
  /** A recovery in progress (serve: through `agent-bridge recover`). */
  private recovery: Promise<void> | null = null;
  /** Identity of the history.db found damaged when the writer could not start on it. */
  private damaged: string | null = null;
  /** Set when capture's writer thread ended on its own. */
  private writerLostError: HistoryError | null = null;

  /**
   * `onWriterLost` hears that capture's writer thread ended on its own: the
   * history worker entry ends the worker, which HistoryService restarts.
   */
  constructor(
    private readonly limits: Limits = LIMITS,
    private readonly onWriterLost: (error: HistoryError) => void = () => undefined,
  ) {}

  async start(options: StartOptions): Promise<void> {
    if (this.options !== null) throw new HistoryError('BAD_INPUT', 'the history worker is already started');
    this.options = options;
    this.paths = resolvePaths(options.env as NodeJS.ProcessEnv);
    this.statusPublisher = new StatusPublisher(this.paths);
    this.settings = new SettingsWatcher(this.paths.configJson);
    this.startedAt = Date.now();
    if (ingestEnvDisabled(options.env as NodeJS.ProcessEnv)) {
      this.phase = 'disabled';
      return;
    }
    this.phase = 'starting';
    // Before the parser pool exists, so that its threads inherit the lower priority.
    lowerThreadPriority(options.env as NodeJS.ProcessEnv);
    this.tryElect();
    // Published in once runs too, so that `agent-bridge health` elsewhere follows an `ingest --once`;
    // only a serve watches for recover requests and a replaced store.
    this.statusTimer = setInterval(() => {
      this.publishStatus();
      if (options.mode === 'serve') void this.watchStore();
    }, STATUS_EVERY_MS).unref();
  }

  /** Become the writer, or wait in standby while another live process is. */
  private tryElect(): void {
    const options = this.options as StartOptions;
    const paths = this.paths as HistoryPaths;
    try {
      mkdirSync(paths.bridgeHome, { recursive: true, mode: 0o700 });
      const lock = WriterLock.acquire(paths.writerLock);
      this.standbyOwner = null;
      this.launch(lock);
    } catch (error) {
      const shape = serializeError(error);
      if (shape.code === 'WRITER_LOCKED' && options.mode === 'serve' && !this.stopping) {
        this.phase = 'standby';
        this.standbyOwner = WriterLock.liveOwner(paths.writerLock)?.pid ?? null;
        this.standbyTimer = setTimeout(() => this.tryElect(), STANDBY_RETRY_MS);
        return;
      }
      this.failedToLaunch(error);
      this.finishedResult = Promise.reject(toHistoryError(error));
      this.finishedResult.catch(() => undefined);
    }
  }

  private launch(lock: WriterLock): void {
    const options = this.options as StartOptions;
    const paths = this.paths as HistoryPaths;
    const settings = this.settings as SettingsWatcher;
    let db: Db;
    let rate: () => number | null;
    try {
      rate = migrationRate({ pace: options.pace, env: options.env, settings: () => settings.read().settings });
      db = openWriter(paths.historyDb);
    } catch (error) {
      lock.release();
      throw error;
    }
    // One writable connection: the history actor owns it, the migrator writes
    // through it before ingestion starts (and for tail replays).
    const history = new HistoryActor(db);
    const runner = new MigrationRunner({
      paths,
      history: db,
      limits: this.limits,
      rate,
      transientAttempts: options.mode === 'once' ? 3 : Infinity,
      switchedOff: () => !settings.read().settings.ingest,
    });
    const migrator = new MigratorActor(runner, {
      mode: options.mode,
      paths,
      history: db,
      tailIntervalMs: this.limits.migrationTailIntervalMs,
      retryPollMs: STANDBY_RETRY_MS,
    });
    if (this.pressureOn) migrator.handle({ type: 'pressure', active: true });
    const done = migrator.handle({ type: 'run' }).then((progress) => this.afterMigration(progress));
    this.running = { lock, history, db, migrator, ingestion: null, done };
    this.phase = 'migrating';
    if (options.mode === 'once') {
      this.finishedResult = done.then(
        async () => {
          const summary = this.summary();
          await this.stop();
          // A run stopped because its writer thread was lost did not capture everything: it fails.
          if (this.writerLostError !== null) throw this.writerLostError;
          return summary;
        },
        async (error: unknown) => {
          if (this.writerLostError === null) this.fatal = serializeError(error);
          await this.stop();
          throw this.writerLostError ?? toHistoryError(error);
        },
      );
      this.finishedResult.catch(() => undefined);
    } else {
      done.catch((error: unknown) => {
        if (this.writerLostError === null) this.fatal = serializeError(error);
        this.phase = 'failed';
        // A damaged store: the service stays the writer and waits for `agent-bridge recover`.
      });
      // At once, before the first batch: the status file's reserve is in place should the disk fill up.
      this.publishStatus();
    }
  }

  /** Start ingestion on a verified store; a latched failure (once mode) ends the run with its error. */
  private async afterMigration(progress: MigrationProgress): Promise<void> {
    const running = this.running;
    if (running === null || this.stopping) return;
    if (progress.phase !== 'verified') {
      if (progress.phase !== 'failed') return; // stopped
      const cause = progress.error?.message ?? 'unknown error';
      throw new HistoryError('VERIFY_FAILED', `the legacy history migration failed and stays failed until \`agent-bridge reindex --retry\`: ${cause}`, {
        step: 'migrate legacy history',
      });
    }
    // From here on every write goes through the writer thread's connection; this thread's stays the migrator's (tail replays).
    this.phase = 'starting'; // the migration is over; capture starts once the writer thread has opened the store
    const writer = await WriterClient.open((this.paths as HistoryPaths).historyDb, (error) => this.writerLost(error));
    if (this.stopping || this.running !== running) {
      await writer.close(); // stopped while it opened: stopActors found no ingestion to stop
      return;
    }
    const ingestion = this.startIngestion(running, writer);
    running.ingestion = ingestion;
    this.counts = ingestion.writer.ask({ type: 'counts' });
    this.countsAt = Date.now();
    this.phase = 'ingesting';
    return ingestion.loop;
  }

  private startIngestion(running: Running, writer: WriterClient): Ingestion {
    const options = this.options as StartOptions;
    const paths = this.paths as HistoryPaths;
    const settings = this.settings as SettingsWatcher;
    const history = writer.ask;
    // Providers read their own committed keys on this thread's connection (src/service/provider-reads.ts).
    const providerHistory = providerAsk((message) => running.history.handle(message), history);
    const parser = new ParserPool(parserThreads(options.env as NodeJS.ProcessEnv));
    const projects = new ProjectResolver();
    const requests = new ReindexRequests(reindexRequestPath(paths));
    let scheduler: Scheduler | null = null;
    // This thread's connection checkpoints what the writer thread commits (src/store/checkpointer.ts).
    const checkpointer = new WalCheckpointer(running.db);
    const opencode = new OpenCodeProvider({ paths, limits: this.limits, history: providerHistory, resolveProject: (cwd) => projects.resolve(cwd), mode: options.mode });
    const bridge = new BridgeProvider({ paths, limits: this.limits, history: providerHistory, resolveProject: (cwd) => projects.resolve(cwd) });
    const discovery = new DiscoveryActor(paths, this.limits, options.mode, (path) => scheduler?.changed(path));
    const mirror = mirrorsDisabled(options.env)
      ? null
      : new MirrorActor(new MirrorSync({ paths, env: options.env, limits: this.limits, mode: options.mode }), () => (scheduler?.pauseReasons().length ?? 0) > 0);
    scheduler = new Scheduler(
      {
        history,
        send: writer.send,
        providers: [opencode, bridge],
        parse: parser.parse,
        discovery,
        settings: () => settings.read().settings,
        resolveProject: (cwd) => projects.resolve(cwd),
        reindexRequest: () => requests.read(),
        ...(mirror === null ? {} : { mirror: async () => (await mirror.handle({ type: 'step' })).more }),
        checkpoint: (idle) => checkpointer.step(idle),
      },
      { limits: this.limits, pace: options.pace, mode: options.mode, reindex: options.reindex === true, scrub: scrubConfig(options.env), verify: options.verify === true },
    );
    if (this.pressureOn) scheduler.setPressure(true);
    if (options.mode === 'serve') discovery.watch();
    return { writer, parser, discovery, scheduler, mirror, loop: scheduler.run() };
  }

  finished(): Promise<OnceSummary> {
    if (this.finishedResult === null) throw new HistoryError('BAD_INPUT', 'finished() is only available for a once run that has started');
    return this.finishedResult;
  }

  pressure(active: boolean): void {
    this.pressureOn = active;
    this.running?.migrator.handle({ type: 'pressure', active });
    this.running?.ingestion?.scheduler.setPressure(active);
  }

  lockError(): void {
    this.running?.ingestion?.scheduler.lockError();
  }

  private summary(): OnceSummary {
    const totals = this.running?.ingestion?.scheduler.totals;
    this.refreshCounts(0); // what the run leaves in the store, not the counts from before it
    return {
      batches: totals?.batches ?? 0,
      records: totals?.records ?? 0,
      documents: totals?.documents ?? 0,
      reindexedDocuments: this.running?.ingestion?.scheduler.reindexer.documents ?? 0,
      rawBytes: totals?.rawBytes ?? 0,
      elapsedMs: Date.now() - this.startedAt,
      status: this.status(),
    };
  }

  private migrationStatus(): MigrationProgress {
    const running = this.running;
    if (running === null) return emptyProgress('starting');
    const progress = running.migrator.handle({ type: 'progress' });
    const tailError = running.migrator.tailError;
    return tailError !== null && progress.error === null ? { ...progress, error: tailError } : progress;
  }

  /** Counts scan history.db: at most every `maxAgeMs`, and not while the migration is still filling it. */
  private refreshCounts(maxAgeMs: number): void {
    const running = this.running;
    if (running === null || running.ingestion === null || Date.now() - this.countsAt < maxAgeMs) return;
    try {
      this.counts = this.ask(running)({ type: 'counts' });
      this.countsAt = Date.now();
    } catch {
      // counts are informative; a busy store keeps the last ones
    }
  }

  /** What `serve` redraws its progress line from, every second: the part of status() it reads, without the rest's cost. */
  progress(): ServeProgress {
    const running = this.running;
    const scheduler = running?.ingestion?.scheduler;
    const migration = this.migrationStatus();
    let phase: Phase = this.phase === 'ingesting' && scheduler !== undefined ? (scheduler.phase === 'starting' ? 'starting' : scheduler.phase) : this.phase;
    if (phase === 'migrating' && migration.phase === 'failed') phase = 'failed';
    const backlog = { sources: scheduler?.pendingCount() ?? 0, bytes: scheduler?.backlogBytes() ?? 0 };
    return {
      phase,
      pausedBy: scheduler?.pauseReasons() ?? [],
      backlog,
      capture: scheduler?.meter.progress({ ...backlog, discovering: scheduler.discovering }, Date.now()) ?? CAUGHT_UP,
      migration,
    };
  }

  status(): HistoryStatus {
    const running = this.running;
    const scheduler = running?.ingestion?.scheduler;
    this.refreshCounts(COUNTS_EVERY_MS);
    const { phase, pausedBy, backlog, capture, migration } = this.progress();
    return {
      phase,
      pausedBy,
      mode: this.options?.mode ?? null,
      pace: this.options?.pace ?? null,
      writer: running !== null || this.recovery !== null ? { pid: process.pid, self: true } : { pid: this.standbyOwner, self: false },
      counts: this.counts,
      backlog,
      capture,
      discovery: {
        passes: running?.ingestion?.discovery.passes ?? 0,
        running: phase === 'ingesting' || phase === 'starting',
        lastPassAt: scheduler?.lastPassAt ?? null,
        refusedLinks: running?.ingestion?.discovery.refusedLinks ?? 0,
        gone: scheduler?.goneCount() ?? 0,
        skipped: running?.ingestion?.discovery.skippedCount ?? 0,
      },
      watch: running?.ingestion?.discovery.watchState ?? { state: 'off', problem: null },
      batches: {
        committed: scheduler?.totals.batches ?? 0,
        lastMs: scheduler?.latency.last ?? 0,
        p50Ms: scheduler?.latency.percentile(50) ?? 0,
        p99Ms: scheduler?.latency.percentile(99) ?? 0,
      },
      malformedLines: scheduler?.totals.malformed ?? 0,
      scrub: scheduler?.scrubStatus() ?? null,
      reindex: this.reindexStatus(),
      problems: scheduler?.problems() ?? [],
      lastError: this.fatal ?? scheduler?.lastError ?? (migration.phase === 'failed' ? migration.error : null),
      migration,
      mirror: this.mirrorStatus(),
      config: { file: this.paths?.configJson ?? '', problems: this.phase === 'disabled' ? [] : (this.settings?.read().problems ?? []) },
      updatedAt: Date.now(),
    };
  }

  private mirrorStatus(): MirrorStatus {
    if (this.options !== null && mirrorsDisabled(this.options.env)) return idleMirrorStatus('off', 'AGENT_BRIDGE_HISTORY_MIRRORS=off');
    const ingestion = this.running?.ingestion;
    if (ingestion === null || ingestion === undefined) return idleMirrorStatus(this.running === null ? 'off' : 'not-started');
    return ingestion.mirror?.handle({ type: 'status' }) ?? idleMirrorStatus('off');
  }

  /** The history actor: this thread's before capture starts, the writer thread's after. */
  private ask(running: Running): HistoryAsk {
    return running.ingestion?.writer.ask ?? ((message) => running.history.handle(message));
  }

  /**
   * Read from the store, except while capture's reindexer is idle and has
   * begun none since the last read: then nothing can have changed it (only
   * that reindexer begins and steps a reindex, under the writer lock), and the
   * status tick spares the writer thread two asks a second.
   */
  private reindexStatus(): HistoryStatus['reindex'] {
    const running = this.running;
    if (running === null) return { phase: 'idle', requestedAt: null, rebuilt: 0, lastDone: null };
    const reindexer = running.ingestion?.scheduler.reindexer;
    const seen = this.reindexSeen;
    if (reindexer?.idle === true && seen?.reindexer === reindexer && seen.begins === reindexer.begins) return seen.status;
    const history = this.ask(running);
    try {
      const progress = history({ type: 'reindexProgress' });
      const status: HistoryStatus['reindex'] = {
        phase: progress?.phase ?? 'idle',
        requestedAt: progress?.requestedAt ?? null,
        rebuilt: progress?.rebuilt ?? 0,
        lastDone: history({ type: 'lastReindex' }),
      };
      // Asks are synchronous: the reindexer did not move while they were answered.
      if (reindexer?.idle === true) this.reindexSeen = { reindexer, begins: reindexer.begins, status };
      return status;
    } catch {
      return { phase: 'idle', requestedAt: null, rebuilt: 0, lastDone: null };
    }
  }

  /** Capture cannot go on without its writer thread: say so in the status, then let the worker be restarted. */
  private writerLost(error: HistoryError): void {
    if (this.stopping) return; // a stop closes the writer anyway: nothing is lost that the stop would keep
    this.writerLostError = new HistoryError('STOPPED', `capture's writer thread ended unexpectedly: ${error.message}`);
    this.fatal = serializeError(this.writerLostError);
    this.publishStatus();
    this.onWriterLost(error);
  }

  private publishStatus(): void {
    if (this.statusPublisher === null || (this.running === null && this.recovery === null)) return;
    try {
      this.statusPublisher.publish(this.status());
    } catch {
      // status publication is best effort
    }
  }

  /** Stop everything and release the writer lock; every caller, the first or a later one, waits for the same stop. */
  stop(): Promise<void> {
    this.stopped ??= this.stopOnce();
    return this.stopped;
  }

  private get stopping(): boolean {
    return this.stopped !== null;
  }

  private async stopOnce(): Promise<void> {
    await this.recovery;
    if (this.standbyTimer !== null) clearTimeout(this.standbyTimer);
    if (this.statusTimer !== null) clearInterval(this.statusTimer);
    const running = this.running;
    if (running === null) {
      if (this.phase !== 'disabled') this.phase = 'stopped';
      return;
    }
    const failed = await this.stopActors(running);
    running.lock.release();
    this.running = null;
    this.phase = 'stopped';
    if (failed !== undefined) throw toHistoryError(failed.reason, 'stop actors');
  }

  /** The explicit stop protocol: migrator and scheduler reach a safe point, then every actor stops (the lock is kept). */
  private async stopActors(running: Running): Promise<PromiseRejectedResult | undefined> {
    await running.migrator.stop();
    const ingestion = running.ingestion;
    if (ingestion !== null) await ingestion.scheduler.stop();
    await running.done.catch(() => undefined);
    this.publishStatus();
    const results = await Promise.allSettled([
      ingestion?.mirror?.stop(),
      ingestion?.discovery.stop(),
      ingestion?.parser.stop(),
      ingestion?.writer.close(),
      running.history.stop(),
    ]);
    return results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  }

  // ---- a damaged history.db (serve) ---------------------------------------------------

  /**
   * Every status tick: carry out a pending `agent-bridge recover` request, or,
   * after history.db was found damaged, start again once another process put a
   * new store in its place.
   */
  private async watchStore(): Promise<void> {
    const paths = this.paths;
    if (paths === null || this.stopping || this.recovery !== null) return;
    const request = pendingRecover(paths);
    if (request !== null) {
      this.recovery = this.recoverNow(paths, request).finally(() => (this.recovery = null));
      return;
    }
    if (this.damaged !== null && this.running === null && fileIdentity(paths.historyDb) !== this.damaged) {
      this.damaged = null;
      this.fatal = null;
      this.tryElect();
    }
  }

  /** Stop capture at a safe point, salvage history.db into a new store, answer the request, capture again. */
  private async recoverNow(paths: HistoryPaths, request: RecoverRequest): Promise<void> {
    let lock: WriterLock;
    const running = this.running;
    if (running !== null) {
      this.phase = 'recovering';
      await this.stopActors(running);
      this.running = null;
      lock = running.lock;
    } else {
      try {
        lock = WriterLock.acquire(paths.writerLock);
      } catch {
        return; // another process is the writer: it answers the request
      }
      this.phase = 'recovering';
    }
    const outcome = await recoverHome(paths, request);
    writeRecoverOutcome(paths, outcome);
    if (this.stopping) {
      lock.release();
      return;
    }
    this.damaged = null;
    this.fatal = null;
    try {
      this.launch(lock);
    } catch (error) {
      this.failedToLaunch(error);
    }
  }

  /** The writer could not start on history.db: report why; a damaged store is watched for its replacement. */
  private failedToLaunch(error: unknown): void {
    const shape = serializeError(error);
    this.phase = 'failed';
    this.fatal = shape;
    if (shape.code === 'STORE_CORRUPT' && this.paths !== null) this.damaged = fileIdentity(this.paths.historyDb);
  }
}
