// HistoryService: the facade the broker embeds on its own thread. It runs no
// SQLite, no parsing and no file scanning: it starts the history worker
// thread and passes messages to it (src/service/thread-calls.ts). Imports here must stay free of
// better-sqlite3, piscina and the source parsers; a test checks that.
//
// Reads (search, getConversation) go to a separate reader thread
// (src/service/reader-thread.ts) with its own read-only connections, started on first use and independent of
// ingestion: a write batch never delays a query, and reads stay available
// when ingestion is switched off.
//
// With AGENT_BRIDGE_HISTORY_INGEST=false (or 0) no history worker is started at all.
// An unexpected worker exit in serve mode restarts it after a capped,
// growing delay (2 s, 4 s, ... 30 s); the delay resets after a healthy minute.

import type { Worker } from 'node:worker_threads';
import { CAUGHT_UP } from '../../protocols/capture.ts';
import { HistoryError } from '../../protocols/errors.ts';
import type { GetConversationOutput, SearchHistoryOutput } from '../../protocols/search.ts';
import { parseConversationRequest, parseSearchRequest } from '../../protocols/search.ts';
import type { HistoryStatus, HistoryWorkerApi, OnceSummary, Pace, ServeProgress, StartOptions } from '../../protocols/service.ts';
import { resolvePaths } from '../config/paths.ts';
import { ingestEnvDisabled } from '../config/ingest-env.ts';
import { LIMITS } from '../config/limits.ts';
import { emptyProgress } from '../migration/progress-object.ts';
import { idleMirrorStatus } from '../../protocols/mirror.ts';
import { ReaderThread } from './reader-thread.ts';
import { ThreadCalls } from './thread-calls.ts';
import { spawnThread } from './threads.ts';

export interface HistoryServiceOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly mode?: 'serve' | 'once';
  readonly pace?: Pace;
  /** Rebuild derived search data from retained records first. */
  readonly reindex?: boolean;
  /** Once mode: compare every captured prefix with its file before finishing. */
  readonly verify?: boolean;
  /** Called when the worker fails or restarts (the broker logs it). */
  readonly onEvent?: (event: { type: 'restart' | 'exit' | 'error'; detail: string }) => void;
}

const RESTART_MIN_MS = 2000;
const RESTART_MAX_MS = 30_000;
const HEALTHY_MS = 60_000;

function disabledStatus(env: NodeJS.ProcessEnv): HistoryStatus {
  return {
    phase: 'disabled',
    pausedBy: [],
    mode: null,
    pace: null,
    writer: { pid: null, self: false },
    counts: { sources: 0, conversations: 0, records: 0, documents: 0, rawBytes: 0 },
    backlog: { sources: 0, bytes: 0 },
    capture: CAUGHT_UP,
    discovery: { passes: 0, running: false, lastPassAt: null, refusedLinks: 0, gone: 0, skipped: 0 },
    watch: { state: 'off', problem: null },
    batches: { committed: 0, lastMs: 0, p50Ms: 0, p99Ms: 0 },
    malformedLines: 0,
    scrub: null,
    reindex: { phase: 'idle', requestedAt: null, rebuilt: 0, lastDone: null },
    problems: [],
    lastError: null,
    migration: emptyProgress('starting'),
    mirror: idleMirrorStatus('off', 'ingestion is disabled'),
    // No worker reads config.json while the environment switch is off.
    config: { file: resolvePaths(env).configJson, problems: [] },
    updatedAt: Date.now(),
  };
}

export class HistoryService {
  private reader: ReaderThread | null = null;
  private worker: Worker | null = null;
  private api: ThreadCalls<HistoryWorkerApi> | null = null;
  private readonly startOptions: StartOptions;
  private stopped = false;
  private restartDelay = RESTART_MIN_MS;
  private restartTimer: NodeJS.Timeout | null = null;
  private startedAt = 0;
  private pressureOn = false;

  constructor(private readonly options: HistoryServiceOptions = {}) {
    const env = options.env ?? process.env;
    this.startOptions = { env: { ...env }, mode: options.mode ?? 'serve', pace: options.pace ?? 'spec', reindex: options.reindex === true, verify: options.verify === true };
  }

  /** Whether the environment switch keeps the worker from starting. */
  get disabled(): boolean {
    return ingestEnvDisabled(this.startOptions.env as NodeJS.ProcessEnv);
  }

  get running(): boolean {
    return this.worker !== null;
  }

  async start(): Promise<void> {
    if (this.disabled || this.worker !== null) return;
    // A home that cannot be used (a path that is not UTF-8) is refused here, before any thread starts.
    resolvePaths(this.startOptions.env as NodeJS.ProcessEnv);
    this.stopped = false;
    await this.spawn();
  }

  private async spawn(): Promise<void> {
    const worker = spawnThread('actors/history-worker.ts', 'agent-bridge-history', { youngGenerationMb: LIMITS.historyWorkerYoungGenerationMb });
    this.worker = worker;
    this.api = new ThreadCalls<HistoryWorkerApi>(worker, 'the history worker');
    this.startedAt = Date.now();
    worker.on('error', (error) => this.options.onEvent?.({ type: 'error', detail: error.message }));
    worker.on('exit', (code) => this.exited(worker, code));
    // Sent before start, so a worker spawned under pressure never captures a
    // batch before it hears of it (the worker handles messages in order).
    if (this.pressureOn) this.api.call('pressure', true).catch(() => undefined);
    try {
      await this.api.call('start', this.startOptions);
    } catch (error) {
      // A worker that failed to start must not keep the process alive.
      this.worker = null;
      this.api = null;
      await worker.terminate();
      throw error;
    }
  }

  private exited(worker: Worker, code: number): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.api = null;
    if (this.stopped || this.startOptions.mode === 'once') return;
    if (Date.now() - this.startedAt > HEALTHY_MS) this.restartDelay = RESTART_MIN_MS;
    const delay = this.restartDelay;
    this.restartDelay = Math.min(RESTART_MAX_MS, this.restartDelay * 2);
    this.options.onEvent?.({ type: 'restart', detail: `history worker exited with code ${code}; restarting in ${delay} ms` });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.stopped) this.spawn().catch((error: unknown) => this.options.onEvent?.({ type: 'error', detail: String(error) }));
    }, delay);
    this.restartTimer.unref();
  }

  /** Broker request load: pause ingestion at the next yield (true) or resume (false). */
  pressure(active: boolean): void {
    this.pressureOn = active;
    this.api?.call('pressure', active).catch(() => undefined);
  }

  /** The broker hit a lock error: ingestion cools down for 5 s. */
  lockError(): void {
    this.api?.call('lockError').catch(() => undefined);
  }

  async status(): Promise<HistoryStatus> {
    if (this.disabled) return disabledStatus(this.startOptions.env as NodeJS.ProcessEnv);
    if (this.api === null) throw new HistoryError('STOPPED', 'the history worker is not running');
    return this.api.call('status');
  }

  /** The part of the status `serve`'s progress line needs (see ServeProgress). */
  async progress(): Promise<ServeProgress> {
    if (this.disabled) return disabledStatus(this.startOptions.env as NodeJS.ProcessEnv);
    if (this.api === null) throw new HistoryError('STOPPED', 'the history worker is not running');
    return this.api.call('progress');
  }

  /** For mode `once`: resolves when no work remains. */
  async finished(): Promise<OnceSummary> {
    if (this.api === null) throw new HistoryError('STOPPED', 'the history worker is not running');
    return this.api.call('finished');
  }

  /** The reader thread, started on first use (and again after it exited). */
  private readerThread(): ReaderThread {
    if (this.reader !== null && !this.reader.exited) return this.reader;
    this.reader = new ReaderThread(this.startOptions.env, 'agent-bridge-history-reader', (error) =>
      this.options.onEvent?.({ type: 'error', detail: `history reader: ${error.message}` }),
    );
    return this.reader;
  }

  /** search_history: validated here (a clear BAD_INPUT before any thread hop), answered by the reader thread. */
  async search(input: unknown): Promise<SearchHistoryOutput> {
    const parsed = parseSearchRequest(input);
    if (!parsed.ok) throw new HistoryError('BAD_INPUT', `invalid search_history input: ${parsed.error}`);
    return this.readerThread().call('search', input);
  }

  /** get_conversation: one page of a conversation's retained records. */
  async getConversation(input: unknown): Promise<GetConversationOutput> {
    const parsed = parseConversationRequest(input);
    if (!parsed.ok) throw new HistoryError('BAD_INPUT', `invalid get_conversation input: ${parsed.error}`);
    return this.readerThread().call('getConversation', input);
  }

  private async stopReader(): Promise<void> {
    const thread = this.reader;
    if (thread === null) return;
    this.reader = null;
    await thread.stop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.stopReader();
    if (this.restartTimer !== null) clearTimeout(this.restartTimer);
    const worker = this.worker;
    const api = this.api;
    if (worker === null || api === null) return;
    try {
      await api.call('stop');
    } catch (error) {
      // A worker that exited on its own meanwhile (a lost writer thread stops itself first) has nothing left to stop.
      if (api.ended === null) throw error;
    } finally {
      this.worker = null;
      this.api = null;
      await worker.terminate();
    }
  }
}
