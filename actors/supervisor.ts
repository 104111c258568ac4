// Supervisor: builds the actors of the history worker and routes messages
// between them and the broker's facade. It owns no domain logic:
//   history    the single writer (HistoryActor), under the writer lock
//   parser     piscina pool (ParserPool)
//   discovery  walker, header cache, watch (DiscoveryActor)
//   scheduler  the ingestion loop (Scheduler)
//   migrator   legacy bridge.db migration: arrives with its own issue
//   mirror     per-project replicas: arrives with its own issue
// Stop is an explicit protocol: the scheduler reaches a safe point (between
// batches), then every actor stops, even if one of them fails to.

import { mkdirSync } from 'node:fs';
import { HistoryError, serializeError, toHistoryError } from '../protocols/errors.ts';
import type { HistoryErrorShape } from '../protocols/errors.ts';
import type { HistoryStatus, OnceSummary, Phase, StartOptions } from '../protocols/service.ts';
import { LIMITS, type Limits } from '../src/config/limits.ts';
import type { HistoryPaths } from '../src/config/paths.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { SettingsWatcher, ingestEnvDisabled } from '../src/config/settings.ts';
import { lowerThreadPriority } from '../src/os/thread-priority.ts';
import { ReindexRequests, reindexRequestPath } from '../src/config/reindex-request.ts';
import { Scheduler } from '../src/ingest/scheduler.ts';
import { ProjectResolver } from '../src/project/canonical.ts';
import { OpenCodeProvider } from '../src/sources/opencode/provider.ts';
import { openWriter } from '../src/store/open.ts';
import { writeStatusFile } from '../src/store/status-file.ts';
import type { StoreCounts } from '../src/store/writer.ts';
import { WriterLock } from '../src/store/writer-lock.ts';
import { DiscoveryActor } from './discovery-actor.ts';
import { HistoryActor } from './history-actor.ts';
import { ParserPool, parserThreads } from './parser-pool.ts';

const STANDBY_RETRY_MS = 2000;
const STATUS_EVERY_MS = 2000;
const COUNTS_EVERY_MS = 5000;

interface Running {
  readonly lock: WriterLock;
  readonly history: HistoryActor;
  readonly parser: ParserPool;
  readonly discovery: DiscoveryActor;
  readonly scheduler: Scheduler;
  readonly loop: Promise<void>;
}

export class Supervisor {
  private options: StartOptions | null = null;
  private paths: HistoryPaths | null = null;
  private running: Running | null = null;
  private phase: Phase = 'stopped';
  private standbyOwner: number | null = null;
  private standbyTimer: NodeJS.Timeout | null = null;
  private statusTimer: NodeJS.Timeout | null = null;
  private fatal: HistoryErrorShape | null = null;
  private counts: StoreCounts = { sources: 0, conversations: 0, records: 0, documents: 0, rawBytes: 0 };
  private countsAt = 0;
  private startedAt = 0;
  private finishedResult: Promise<OnceSummary> | null = null;
  private stopping = false;

  constructor(private readonly limits: Limits = LIMITS) {}

  async start(options: StartOptions): Promise<void> {
    if (this.options !== null) throw new HistoryError('BAD_INPUT', 'the history worker is already started');
    this.options = options;
    this.paths = resolvePaths(options.env as NodeJS.ProcessEnv);
    this.startedAt = Date.now();
    if (ingestEnvDisabled(options.env as NodeJS.ProcessEnv)) {
      this.phase = 'disabled';
      return;
    }
    this.phase = 'starting';
    // Before the parser pool exists, so that its threads inherit the lower priority.
    lowerThreadPriority(options.env as NodeJS.ProcessEnv);
    this.tryElect();
    if (options.mode === 'serve') this.statusTimer = setInterval(() => this.publishStatus(), STATUS_EVERY_MS).unref();
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
      this.phase = 'failed';
      this.fatal = shape;
      this.finishedResult = Promise.reject(toHistoryError(error));
      this.finishedResult.catch(() => undefined);
    }
  }

  private launch(lock: WriterLock): void {
    const options = this.options as StartOptions;
    const paths = this.paths as HistoryPaths;
    let history: HistoryActor;
    try {
      history = new HistoryActor(openWriter(paths.historyDb));
    } catch (error) {
      lock.release();
      throw error;
    }
    const parser = new ParserPool(parserThreads(options.env as NodeJS.ProcessEnv));
    const settings = new SettingsWatcher(paths.configJson);
    const projects = new ProjectResolver();
    const requests = new ReindexRequests(reindexRequestPath(paths));
    let scheduler: Scheduler | null = null;
    const opencode = new OpenCodeProvider({ paths, limits: this.limits, history: (message) => history.handle(message), resolveProject: (cwd) => projects.resolve(cwd), mode: options.mode });
    const discovery = new DiscoveryActor(paths, this.limits, (path) => scheduler?.changed(path));
    scheduler = new Scheduler(
      {
        history: (message) => history.handle(message),
        providers: [opencode],
        parse: parser.parse,
        discovery,
        settings: () => {
          const read = settings.read();
          return { settings: read.settings, problem: read.problem === null ? null : serializeError(read.problem) };
        },
        resolveProject: (cwd) => projects.resolve(cwd),
        reindexRequest: () => requests.read(),
      },
      { limits: this.limits, pace: options.pace, mode: options.mode, reindex: options.reindex === true },
    );
    this.counts = history.handle({ type: 'counts' });
    this.countsAt = Date.now();
    if (options.mode === 'serve') discovery.watch();
    const loop = scheduler.run();
    this.running = { lock, history, parser, discovery, scheduler, loop };
    this.phase = 'ingesting';
    if (options.mode === 'once') {
      this.finishedResult = loop.then(
        async () => {
          const summary = this.summary();
          await this.stop();
          return summary;
        },
        async (error: unknown) => {
          this.fatal = serializeError(error);
          await this.stop();
          throw toHistoryError(error);
        },
      );
      this.finishedResult.catch(() => undefined);
    } else {
      loop.catch((error: unknown) => {
        this.fatal = serializeError(error);
        this.phase = 'failed';
      });
    }
  }

  finished(): Promise<OnceSummary> {
    if (this.finishedResult === null) throw new HistoryError('BAD_INPUT', 'finished() is only available for a once run that has started');
    return this.finishedResult;
  }

  pressure(active: boolean): void {
    this.running?.scheduler.setPressure(active);
  }

  lockError(): void {
    this.running?.scheduler.lockError();
  }

  private summary(): OnceSummary {
    const totals = this.running?.scheduler.totals;
    return {
      batches: totals?.batches ?? 0,
      records: totals?.records ?? 0,
      documents: totals?.documents ?? 0,
      reindexedDocuments: this.running?.scheduler.reindexer.documents ?? 0,
      rawBytes: totals?.rawBytes ?? 0,
      elapsedMs: Date.now() - this.startedAt,
      status: this.status(),
    };
  }

  status(): HistoryStatus {
    const running = this.running;
    const scheduler = running?.scheduler;
    if (running !== null && scheduler !== undefined && Date.now() - this.countsAt > COUNTS_EVERY_MS && running.history !== null) {
      try {
        this.counts = running.history.handle({ type: 'counts' });
        this.countsAt = Date.now();
      } catch {
        // counts are informative; a busy store keeps the last ones
      }
    }
    const phase: Phase = this.phase === 'ingesting' && scheduler !== undefined ? (scheduler.phase === 'starting' ? 'starting' : scheduler.phase) : this.phase;
    return {
      phase,
      pausedBy: scheduler?.pauseReasons() ?? [],
      mode: this.options?.mode ?? null,
      pace: this.options?.pace ?? null,
      writer: { pid: running !== null ? process.pid : this.standbyOwner, self: running !== null },
      counts: this.counts,
      backlog: { sources: scheduler?.pendingCount() ?? 0, bytes: scheduler?.backlogBytes() ?? 0 },
      discovery: {
        passes: running?.discovery.passes ?? 0,
        running: phase === 'ingesting' || phase === 'starting',
        lastPassAt: scheduler?.lastPassAt ?? null,
        refusedLinks: running?.discovery.refusedLinks ?? 0,
        gone: scheduler?.goneCount() ?? 0,
      },
      watch: running?.discovery.watchState ?? { state: 'off', problem: null },
      batches: {
        committed: scheduler?.totals.batches ?? 0,
        lastMs: scheduler?.latency.last ?? 0,
        p50Ms: scheduler?.latency.percentile(50) ?? 0,
        p99Ms: scheduler?.latency.percentile(99) ?? 0,
      },
      malformedLines: scheduler?.totals.malformed ?? 0,
      reindex: this.reindexStatus(),
      problems: scheduler?.problems() ?? [],
      lastError: this.fatal ?? scheduler?.lastError ?? null,
      migration: { phase: 'not-started', detail: 'the legacy bridge.db migration actor is not part of this build' },
      mirror: { phase: 'not-started', detail: 'project mirrors are not part of this build' },
      updatedAt: Date.now(),
    };
  }

  private reindexStatus(): HistoryStatus['reindex'] {
    const history = this.running?.history;
    if (history === undefined) return { phase: 'idle', requestedAt: null, rebuilt: 0, lastDone: null };
    try {
      const progress = history.handle({ type: 'reindexProgress' });
      return {
        phase: progress?.phase ?? 'idle',
        requestedAt: progress?.requestedAt ?? null,
        rebuilt: progress?.rebuilt ?? 0,
        lastDone: history.handle({ type: 'lastReindex' }),
      };
    } catch {
      return { phase: 'idle', requestedAt: null, rebuilt: 0, lastDone: null };
    }
  }

  private publishStatus(): void {
    if (this.paths === null || this.running === null) return;
    try {
      writeStatusFile(this.paths, this.status());
    } catch {
      // status publication is best effort
    }
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.standbyTimer !== null) clearTimeout(this.standbyTimer);
    if (this.statusTimer !== null) clearInterval(this.statusTimer);
    const running = this.running;
    if (running === null) {
      if (this.phase !== 'disabled') this.phase = 'stopped';
      return;
    }
    await running.scheduler.stop();
    await running.loop.catch(() => undefined);
    this.publishStatus();
    const results = await Promise.allSettled([running.discovery.stop(), running.parser.stop(), running.history.stop()]);
    running.lock.release();
    this.running = null;
    this.phase = 'stopped';
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw toHistoryError(failed.reason, 'stop actors');
  }
}
