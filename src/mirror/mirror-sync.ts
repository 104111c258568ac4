// The project mirrors of one bridge home, one bounded step at a time (the
// mirror actor's domain). A step:
//   1. prepares projects that are new or due for another try (folder, Git
//      exclusion, links; within a small time budget, at least one);
//   2. checks one unit of at most `idsPerStep` ids: a page of the project
//      list, or a slice of one project's sweep (src/mirror/project-sync.ts);
//   3. copies at most `recordsPerStep` records of one dirty conversation,
//      or merges a bounded part of a replica's FTS5 index (bounded merges
//      for about ftsMergeMs) when that project owes it (after its
//      documents were copied), rotating over projects.
// Rounds: whenever the central store changed since the last round began
// (PRAGMA data_version), a round lists the projects and sweeps each one
// once. Between rounds, when nothing changed, a step costs two pragmas.
//
// Invariants: reads of history.db use this module's own read-only
// connection, never the writer; nothing runs while a central reindex is
// rebuilding documents (a record copied then could miss them); a replica's
// rows and cursor commit together; nothing is ever deleted (a damaged or
// foreign replica is moved into the backup folder and rebuilt).

import type { MirrorStatus, MirrorStepResult, ProjectMirrorState, ProjectMirrorStatus } from '../../protocols/mirror.ts';
import type { HistoryPaths } from '../config/paths.ts';
import type { Limits } from '../config/limits.ts';
import { LatencyWindow } from '../ingest/latency.ts';
import { ftsAvailable, ftsWanted, openReader, type Db } from '../store/open.ts';
import { CentralView } from './central.ts';
import { isInfrastructure, pluginCacheRoots } from './infrastructure.ts';
import { lstatOrNull } from './links.ts';
import { placementOf, replicaLocation, type Placement, type ReplicaLocation } from './location.ts';
import { openLocal, prepareReplica, type OpenReplica } from './prepare.ts';
import { errorText, type MirrorProblem } from './problem.ts';
import { ProjectSync } from './project-sync.ts';
import { isCorruption } from './replica-store.ts';
import { ReplicaMismatch } from './replica-writer.ts';

export type MirrorLimits = Pick<
  Limits,
  'mirrorRecordsPerStep' | 'mirrorIdsPerStep' | 'mirrorStepBytes' | 'ftsMergePages' | 'ftsMergeMs' | 'mirrorRecheckMs' | 'mirrorAbsentRecheckMaxMs' | 'mirrorVerifyMs' | 'mirrorOpenReplicas' | 'mirrorPrepareBudgetMs'
>;

export interface MirrorSyncOptions {
  readonly paths: HistoryPaths;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly limits: MirrorLimits;
  /** `serve` also looks now and then whether synced replicas are still there. */
  readonly mode: 'serve' | 'once';
  readonly now?: () => number;
  /** The git binary (tests point it at a missing one). */
  readonly git?: string;
}

/**
 * Copy and merge units one project may run in a row before the next due
 * project's turn: its replica stays open and warm (with more projects than
 * open connections, a turn per step reopened a replica for nearly every step).
 */
const TURN_STEPS = 16;

interface Entry {
  readonly project: string;
  readonly location: ReplicaLocation;
  /** pending (prepare now), ready, or a problem waiting for `retryAt`. */
  state: 'pending' | 'ready' | 'deferred' | 'refused';
  reason: string | null;
  path: string | null;
  retryAt: number;
  /** Checks in a row that found the project folder absent (each doubles the delay to the next). */
  absentChecks: number;
  /** Move the replica aside before opening it next (it was found damaged or foreign). */
  backup: string | undefined;
  readonly sync: ProjectSync;
  open: OpenReplica | null;
  /** The inode the sync state describes (0: none yet). */
  ino: number;
  lastUsed: number;
}

interface Round {
  readonly version: number;
  listing: boolean;
  after: string;
  readonly queue: string[];
}

export class MirrorSync {
  readonly placement: Placement;
  private readonly roots: string[];
  private readonly fts: boolean;
  private readonly now: () => number;
  private central: { db: Db; view: CentralView } | null = null;
  private readonly entries = new Map<string, Entry>();
  private readonly infrastructure = new Set<string>();
  private round: Round | null = null;
  private lastRoundVersion: number | null = null;
  private copyTurn = 0;
  /** The project whose copy and merge units the last steps ran, and how many in a row. */
  private turn: { readonly project: string; steps: number } | null = null;
  private verifiedAt = 0;
  private useClock = 0;
  /** A central reindex holds copying back. */
  waiting = false;
  /** The central store's last finished reindex ('' for none), read each step. */
  private reindexedAt = '';
  lastError: string | null = null;
  readonly latency = new LatencyWindow(1000);
  steps = 0;
  copiedTotal = 0;

  constructor(private readonly options: MirrorSyncOptions) {
    this.placement = placementOf(options.paths);
    this.roots = pluginCacheRoots(options.paths, options.env);
    this.fts = ftsWanted(options.env as NodeJS.ProcessEnv) && ftsAvailable();
    this.now = options.now ?? Date.now;
  }

  // ---- the step ---------------------------------------------------------------

  async step(): Promise<MirrorStepResult> {
    const central = this.ensureCentral();
    if (central === null) return { copied: 0, checked: 0, more: false };
    const version = central.view.dataVersion();
    this.waiting = central.view.reindexing();
    if (this.waiting) return { copied: 0, checked: 0, more: false };
    this.reindexedAt = central.view.reindexedAt();
    if (this.options.mode === 'serve' && this.now() - this.verifiedAt >= this.options.limits.mirrorVerifyMs) this.verify();
    await this.prepareDue();
    // The check and copy units hold the worker thread (Git, in prepareDue, runs in child processes).
    const started = performance.now();
    const checked = this.checkUnit(version);
    const { copied, worked } = this.copyUnit();
    // Steps that found nothing to do (idle turns) are not counted: they would only dilute the latency figures.
    if (checked > 0 || worked) {
      this.latency.add(performance.now() - started);
      this.steps++;
      this.copiedTotal += copied;
    }
    return { copied, checked, more: this.hasWork(version) };
  }

  private ensureCentral(): { db: Db; view: CentralView } | null {
    if (this.central === null) {
      const db = openReader(this.options.paths.historyDb);
      if (db === null) return null;
      this.central = { db, view: new CentralView(db) };
    }
    return this.central;
  }

  private hasWork(version: number): boolean {
    if (this.round !== null || version !== this.lastRoundVersion) return true;
    // Deferred and refused projects are not work: they are retried when due, and a once run does not wait for them.
    for (const entry of this.entries.values()) {
      if (entry.state === 'pending') return true;
      if (entry.state === 'ready' && (entry.sync.hasDirty || entry.sync.mergeOwed || !entry.sync.swept)) return true;
    }
    return false;
  }

  // ---- projects -------------------------------------------------------------

  private addProject(project: string): void {
    if (this.entries.has(project) || this.infrastructure.has(project)) return;
    if (isInfrastructure(project, this.roots)) {
      this.infrastructure.add(project);
      return;
    }
    const central = this.central as { view: CentralView };
    const limits = {
      recordsPerStep: this.options.limits.mirrorRecordsPerStep,
      idsPerStep: this.options.limits.mirrorIdsPerStep,
      stepBytes: this.options.limits.mirrorStepBytes,
      mergePages: this.options.limits.ftsMergePages,
      mergeMs: this.options.limits.ftsMergeMs,
    };
    this.entries.set(project, {
      project,
      location: replicaLocation(this.placement, project),
      state: 'pending',
      reason: null,
      path: null,
      retryAt: 0,
      absentChecks: 0,
      backup: undefined,
      sync: new ProjectSync(project, central.view, limits, this.now),
      open: null,
      ino: 0,
      lastUsed: 0,
    });
  }

  /** Prepare pending projects and retry problems that are due, within the time budget (at least one). */
  private async prepareDue(): Promise<void> {
    const started = performance.now();
    const now = this.now();
    for (const entry of this.entries.values()) {
      const due = entry.state === 'pending' || ((entry.state === 'deferred' || entry.state === 'refused') && entry.retryAt <= now);
      if (!due) continue;
      await this.prepare(entry);
      if (performance.now() - started >= this.options.limits.mirrorPrepareBudgetMs) break;
    }
  }

  private async prepare(entry: Entry): Promise<void> {
    let result;
    try {
      result = await prepareReplica(this.placement, entry.project, entry.location, {
        env: this.options.env,
        fts: this.fts,
        now: this.now,
        ...(entry.backup === undefined ? {} : { backup: entry.backup }),
        ...(this.options.git === undefined ? {} : { git: this.options.git }),
      });
    } catch (error) {
      result = { state: 'deferred' as const, reason: `cannot open ${entry.location.replica}: ${errorText(error)}`, path: entry.location.replica };
    }
    if ('reason' in result) return this.problem(entry, result);
    entry.backup = undefined;
    this.attach(entry, result);
    if (this.round !== null && !this.round.listing && !this.round.queue.includes(entry.project)) this.round.queue.push(entry.project);
  }

  private attach(entry: Entry, opened: OpenReplica): void {
    const fresh = opened.created || opened.ino !== entry.ino;
    if (!this.matchesCentral(opened)) {
      opened.writer.db.close();
      entry.backup = 'its records belong to another central history';
      entry.state = 'pending';
      return;
    }
    this.evictFor(entry);
    entry.open = opened;
    entry.ino = opened.ino;
    entry.sync.attach(opened.writer, fresh);
    entry.state = 'ready';
    entry.reason = null;
    entry.path = null;
    entry.absentChecks = 0;
    entry.lastUsed = ++this.useClock;
  }

  /** The replica's newest record must be the central record of the same id (else it mirrors another history.db). */
  private matchesCentral(opened: OpenReplica): boolean {
    const newest = opened.writer.newestRecord();
    if (newest === undefined) return true;
    const central = (this.central as { view: CentralView }).view.recordKeyOf(newest.id);
    return central !== undefined && central.source === newest.source && central.generation === newest.generation && central.offset === newest.offset && central.size === newest.size;
  }

  private problem(entry: Entry, problem: MirrorProblem): void {
    this.closeEntry(entry);
    entry.state = problem.state;
    entry.reason = problem.reason;
    entry.path = problem.path;
    const { mirrorRecheckMs, mirrorAbsentRecheckMaxMs } = this.options.limits;
    entry.absentChecks = problem.absent === true ? entry.absentChecks + 1 : 0;
    const delay = entry.absentChecks === 0 ? mirrorRecheckMs : Math.min(mirrorRecheckMs * 2 ** (entry.absentChecks - 1), mirrorAbsentRecheckMaxMs);
    entry.retryAt = this.now() + delay;
  }

  /** Keep at most mirrorOpenReplicas connections: close the least recently used. */
  private evictFor(entry: Entry): void {
    const open = [...this.entries.values()].filter((e) => e.open !== null && e !== entry);
    if (open.length < this.options.limits.mirrorOpenReplicas) return;
    open.sort((a, b) => a.lastUsed - b.lastUsed);
    for (const victim of open.slice(0, open.length - this.options.limits.mirrorOpenReplicas + 1)) this.closeEntry(victim);
  }

  /** The writer of a ready project, reopened if it was closed; null (and the project re-prepared) when its file is gone. */
  private use(entry: Entry): ProjectSync | null {
    const present = lstatOrNull(entry.location.replica);
    if (present === null || present.ino !== entry.ino || present.isSymbolicLink()) {
      // Deleted, replaced or turned into a link by the owner: prepare again (and rebuild).
      this.closeEntry(entry);
      entry.state = 'pending';
      return null;
    }
    if (entry.open === null) {
      const opened = openLocal(entry.project, entry.location, { fts: this.fts, now: this.now });
      if ('reason' in opened) {
        this.problem(entry, opened);
        return null;
      }
      this.attach(entry, opened);
      if (entry.state !== 'ready') return null;
    }
    entry.lastUsed = ++this.useClock;
    entry.sync.followReindex(this.reindexedAt);
    return entry.sync;
  }

  /** Run a unit of work on a project; a failure defers it (or sends its replica to the backup folder). */
  private guarded(entry: Entry, work: (sync: ProjectSync) => number): number {
    const sync = this.use(entry);
    if (sync === null) return 0;
    try {
      return work(sync);
    } catch (error) {
      this.lastError = `${entry.project}: ${errorText(error)}`;
      if (error instanceof ReplicaMismatch || isCorruption(error)) {
        this.closeEntry(entry);
        entry.backup = errorText(error);
        entry.state = 'pending';
      } else {
        this.problem(entry, { state: 'deferred', reason: `cannot write ${entry.location.replica}: ${errorText(error)}`, path: entry.location.replica });
      }
      return 0;
    }
  }

  /** serve: notice replicas the owner deleted or replaced while nothing else happened. */
  private verify(): void {
    this.verifiedAt = this.now();
    for (const entry of this.entries.values()) {
      if (entry.state !== 'ready') continue;
      const present = lstatOrNull(entry.location.replica);
      if (present === null || present.ino !== entry.ino || present.isSymbolicLink()) {
        this.closeEntry(entry);
        entry.state = 'pending';
      }
    }
  }

  // ---- check and copy units -------------------------------------------------

  private checkUnit(version: number): number {
    const ids = this.options.limits.mirrorIdsPerStep;
    if (this.round === null) {
      const fresh = [...this.entries.values()].some((e) => e.state === 'ready' && !e.sync.swept);
      if (version === this.lastRoundVersion && !fresh) return 0;
      this.round = { version, listing: true, after: '', queue: [] };
    }
    const round = this.round;
    if (round.listing) {
      const page = (this.central as { view: CentralView }).view.projectsAfter(round.after, ids);
      for (const project of page) this.addProject(project);
      round.after = page.at(-1) ?? round.after;
      if (page.length < ids) {
        round.listing = false;
        for (const entry of this.entries.values()) if (entry.state === 'ready' || entry.state === 'pending') round.queue.push(entry.project);
      }
      return page.length;
    }
    while (round.queue.length > 0) {
      const entry = this.entries.get(round.queue[0] as string) as Entry;
      if (entry.state !== 'ready' || !entry.sync.needsSweep(round.version)) {
        round.queue.shift();
        continue;
      }
      const checked = this.guarded(entry, (sync) => sync.check(round.version));
      if (entry.state !== 'ready' || !entry.sync.sweeping) round.queue.shift();
      return checked;
    }
    this.lastRoundVersion = round.version;
    this.round = null;
    return 0;
  }

  /** A copy, or a merge where the project's turn finds one owed (a merge copies nothing but is work). */
  private copyUnit(): { copied: number; worked: boolean } {
    const entry = this.nextTurn();
    if (entry === null) return { copied: 0, worked: false };
    let merged = false;
    const copied = this.guarded(entry, (sync) => {
      if (!sync.mergeOwed) return sync.copy();
      sync.merge();
      merged = true;
      return 0;
    });
    return { copied, worked: copied > 0 || merged };
  }

  /** The project of this copy or merge unit: the last one's while it has work and turns left, else the next due one. */
  private nextTurn(): Entry | null {
    const due = (e: Entry): boolean => e.state === 'ready' && (e.sync.hasDirty || e.sync.mergeOwed);
    const turn = this.turn;
    const current = turn === null ? undefined : this.entries.get(turn.project);
    if (turn !== null && current !== undefined && due(current) && turn.steps < TURN_STEPS) {
      turn.steps++;
      return current;
    }
    const candidates = [...this.entries.values()].filter(due);
    if (candidates.length === 0) {
      this.turn = null;
      return null;
    }
    const next = candidates[this.copyTurn++ % candidates.length] as Entry;
    this.turn = { project: next.project, steps: 1 };
    return next;
  }

  // ---- status -----------------------------------------------------------------

  private stateOf(entry: Entry): ProjectMirrorState {
    if (entry.state !== 'ready') return entry.state;
    return entry.sync.hasDirty || entry.sync.sweeping || !entry.sync.swept ? 'syncing' : 'synced';
  }

  projects(): ProjectMirrorStatus[] {
    return [...this.entries.values()].map((entry) => ({
      project: entry.project,
      replica: entry.location.replica,
      state: this.stateOf(entry),
      reason: entry.reason,
      path: entry.path,
      conversations: entry.sync.conversations,
      records: entry.sync.records,
      behind: entry.state === 'ready' ? entry.sync.behind : null,
      syncedAt: entry.sync.syncedAt,
    }));
  }

  status(): Omit<MirrorStatus, 'phase'> & { readonly busy: boolean } {
    const projects = this.projects();
    return {
      placement: this.placement.kind,
      directory: this.placement.directory,
      projects,
      infrastructure: this.infrastructure.size,
      steps: { count: this.steps, p50Ms: this.latency.percentile(50), p99Ms: this.latency.percentile(99), records: this.copiedTotal },
      lastError: this.lastError,
      busy: this.round !== null || projects.some((p) => p.state === 'syncing' || p.state === 'pending'),
    };
  }

  close(): void {
    for (const entry of this.entries.values()) this.closeEntry(entry);
    this.central?.db.close();
    this.central = null;
  }

  private closeEntry(entry: Entry): void {
    const open = entry.open;
    entry.open = null;
    entry.sync.detach();
    if (open !== null && open.writer.db.open) open.writer.db.close();
  }
}
