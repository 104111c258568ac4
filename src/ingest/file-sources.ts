// File sources, as the scheduler drives them: the table of registered files,
// discovery passes and polling (what changed), and the lanes that read the
// pending ones (at most LIMITS.sourcesPerBatch at a time, each for a bounded
// number of batches before others get a turn). Nothing here writes the store
// except through the history actor's register/move/touch messages; the
// scheduler commits what the lanes read.

import { existsSync } from 'node:fs';
import { serializeError, toHistoryError } from '../../protocols/errors.ts';
import type { ParsedChunk, ParseTask } from '../../protocols/records.ts';
import type { SourceProblem } from '../../protocols/service.ts';
import type { Limits } from '../config/limits.ts';
import type { Found, StepResult } from '../sources/discovery.ts';
import type { SourceCursor, SourcePlan } from '../../protocols/sources.ts';
import type { CommitChunk, HistoryAsk } from '../../protocols/history.ts';
import { isCorruption, isDiskFull } from '../store/store-errors.ts';
import { collectBatch, toCommitChunks } from './batcher.ts';
import { Lane, type LaneDeps } from './lane.ts';
import { observe, observeSync } from './observe.ts';
import { fsPath } from '../os/byte-paths.ts';
import { EMPTY_CURSOR } from '../store/source-rows.ts';
import type { ScrubTarget } from './scrubber.ts';
import { continuesCursor, resolveSource } from './source-moves.ts';
import { SourceTable, type SourceState } from './source-table.ts';

export interface DiscoveryPort {
  /** One bounded step of the walk; a background one may replay unchanged folders (see src/sources/discovery.ts). */
  step(background: boolean): Promise<StepResult>;
  /** The root and module a path belongs to, or null (outside every root, or a link). */
  locate(path: string): Promise<Found | null>;
  classify(found: Found): Promise<SourcePlan | null>;
  readonly passes: number;
  readonly refusedLinks: number;
  /** The folders discovery walks (one per source module and configured location). */
  readonly rootPaths: readonly string[];
  /** Entries named like sources that are not regular files (FIFOs, directories named *.jsonl), in the last pass. */
  readonly skipped: readonly SourceProblem[];
}

export interface FileSourcePorts {
  readonly history: HistoryAsk;
  readonly parse: (task: ParseTask) => Promise<ParsedChunk>;
  readonly discovery: DiscoveryPort;
  readonly resolveProject: (cwd: string) => Promise<string>;
}

export interface FileSourceOptions {
  readonly limits: Limits;
  /** Whether an unfinished last line may be captured now, given the file's mtime. */
  readonly settled: (mtimeMs: number) => boolean;
  readonly now: () => number;
  readonly mode: 'serve' | 'once';
}

export interface ActiveLane {
  readonly lane: Lane;
  readonly state: SourceState;
  batches: number;
  /** Its turn is over and other sources wait: no more chunks are taken from it; it closes once what it gave settled. */
  yielding: boolean;
}

export class FileSources {
  private readonly table: SourceTable;
  private readonly lanes = new Map<string, ActiveLane>();
  /**
   * Sources with chunks in a batch whose commit has not settled (gathered,
   * perhaps sent to the writer thread), and how many such batches. Their
   * cursors in the table are behind what was read, so such a source gets no
   * new lane and its lane is not closed as finished until they settle.
   */
  private readonly uncommitted = new Map<string, number>();
  private readonly dirtyPaths = new Set<string>();
  /** Found files whose registration failed; admitted again first. */
  private readonly unadmitted: Found[] = [];
  private discoveryDueAt = 0;
  private pollIndex = 0;
  private polledAt = 0;
  discoveryRunning = false;
  passesSinceStart = 0;
  lastPassAt: number | null = null;

  constructor(
    private readonly ports: FileSourcePorts,
    private readonly options: FileSourceOptions,
  ) {
    this.table = new SourceTable(ports.history({ type: 'loadSources' }));
  }

  /** A watched file changed: visit it first. */
  changed(path: string): void {
    if (this.dirtyPaths.size < this.options.limits.watchDirtyMax) this.dirtyPaths.add(path);
  }

  get activeLanes(): number {
    return this.lanes.size;
  }

  /**
   * A serve run after its first pass: the watch and the bounded poll see
   * changes of known files, so a pass only needs to find new ones (and
   * those it has no observation of) and runs in the background.
   */
  get backgroundPasses(): boolean {
    return this.options.mode === 'serve' && this.passesSinceStart > 0;
  }

  /** A pass that keeps the loop busy (any pass of a once run, the first of a serve run): it stats what it finds. */
  get busyPass(): boolean {
    return this.discoveryRunning && !this.backgroundPasses;
  }

  /** Up to `steps` bounded discovery steps, when a pass is due or running (a pass that completes ends the turn). */
  async discover(steps = 1): Promise<void> {
    for (let i = 0; i < steps; i++) if (!(await this.discoverStep())) return;
  }

  /** One discovery step; returns whether the pass goes on. */
  private async discoverStep(): Promise<boolean> {
    if (!this.discoveryRunning && this.options.now() < this.discoveryDueAt) return false;
    if (this.unadmitted.length > 0) await this.admit(this.unadmitted.splice(0));
    this.discoveryRunning = true;
    this.table.passRunning = true;
    const step = await this.ports.discovery.step(this.backgroundPasses);
    await this.admit(step.files);
    if (!step.passComplete) return true;
    this.discoveryRunning = false;
    this.table.passRunning = false;
    this.passesSinceStart++;
    this.table.passes = this.passesSinceStart;
    this.lastPassAt = this.options.now();
    // A once run does not wait out the revisit interval for files that wait for a pass (a replaced file).
    const again = this.options.mode === 'once' && this.table.deferredCount() > 0;
    this.discoveryDueAt = again ? 0 : this.options.now() + this.options.limits.discoveryRevisitMs;
    return false;
  }

  /** Observe found files; classify and register the new ones (see source-moves.ts for which source a path is). */
  private async admit(files: readonly Found[]): Promise<void> {
    const table = this.table;
    const plans: SourcePlan[] = [];
    const queue = [...files];
    for (let found = queue.shift(); found !== undefined; found = queue.shift()) {
      const known = table.byPathGet(found.path);
      if (known !== undefined) {
        // A background pass leaves a file it has an observation of to the watch and the poll: idle stats stay bounded per interval.
        if (known.observed === null || !this.backgroundPasses) table.observe(known, ...(await observe(found.path)));
        continue;
      }
      let plan: SourcePlan | null;
      try {
        plan = await this.ports.discovery.classify(found);
      } catch {
        plan = null; // unreadable header: rediscovered next pass
      }
      if (plan === null) continue;
      const resolution = await resolveSource(table, plan.path, plan.id, { observe: async (path) => (await observe(path))[0], continues: continuesCursor });
      // A registered source (found again, moved or replaced) stays in its conversation; a new one takes its name's.
      plan = table.inRegisteredConversation({ ...plan, id: resolution.id });
      if (resolution.kind !== 'moved') {
        plans.push(plan);
        continue;
      }
      // Recorded before anything is read at the new path. The old path, if a new file took it, is then a path of its own.
      this.ports.history({ type: 'move', id: resolution.id, path: plan.path });
      table.moved(resolution.id, plan.path);
      const vacated = table.get(resolution.id)?.plan.path === resolution.from;
      await this.activate([plan], [found]);
      if (vacated) {
        const again = await this.ports.discovery.locate(resolution.from);
        if (again !== null) queue.push(again);
      }
    }
    await this.activate(plans, files);
  }

  /** Register sources (and their conversations), then track them; `files` are what they were classified from. */
  private async activate(plans: readonly SourcePlan[], files: readonly Found[]): Promise<void> {
    if (plans.length === 0) return;
    try {
      this.ports.history({ type: 'register', plans });
    } catch (error) {
      // Not registered (a full disk, a busy store): these files are admitted again before the next discovery step.
      this.unadmitted.push(...files.filter((f) => plans.some((p) => p.path === f.path)));
      throw error;
    }
    for (const plan of plans) {
      const state = this.table.activate(plan);
      this.table.observe(state, ...(await observe(plan.path)));
    }
  }

  /**
   * Stat watched files first, then (every idle poll interval) the files that
   * changed lately and a bounded round-robin slice of all of them.
   */
  async poll(): Promise<void> {
    const table = this.table;
    for (const path of [...this.dirtyPaths]) {
      this.dirtyPaths.delete(path);
      const state = table.byPathGet(path);
      if (state !== undefined) {
        table.markDirty(state);
        table.observe(state, ...(await observe(path)));
      } else {
        const found = await this.ports.discovery.locate(path);
        if (found !== null) await this.admit([found]);
      }
    }
    // The round-robin slice runs at the idle cadence, not every batch of a backlog.
    const now = this.options.now();
    // A first pass stats every file it finds; a background pass leaves that to this slice.
    if (this.busyPass || table.size === 0 || now - this.polledAt < this.options.limits.idlePollMs) return;
    this.polledAt = now;
    const { limits } = this.options;
    const count = Math.min(limits.pollStatsPerTick, table.size);
    const slice = new Set(table.recentlyChanged(now - limits.pollRecentMs, limits.pollRecentStats));
    for (let i = 0; i < count; i++) slice.add(table.nth(this.pollIndex + i) as SourceState);
    this.pollIndex = (this.pollIndex + count) % table.size;
    // On this thread: a local stat takes microseconds, its thread-pool round trip several times that in wake-ups.
    for (const state of slice) if (!this.lanes.has(state.plan.id)) table.observe(state, ...observeSync(state.plan.path));
  }

  /** Whether a source is being read (a lane) or has chunks waiting for their commit: not pending until that is over. */
  private readonly busy = (state: SourceState): boolean => this.lanes.has(state.plan.id) || this.uncommitted.has(state.plan.id);

  /** Lanes that may still give chunks (an exhausted or yielding one waits for its last batch to settle before it closes). */
  private readingLanes(): ActiveLane[] {
    return [...this.lanes.values()].filter((active) => !active.lane.exhausted && !active.yielding);
  }

  /** File sources waiting for a visit, plus those being read (and, in a once run, those waiting for a pass). */
  pendingCount(): number {
    return this.table.pendingCount(this.options.settled, this.busy) + this.lanes.size + (this.options.mode === 'once' ? this.table.deferredCount() : 0);
  }

  /** pendingCount() > 0, without counting: the capture loop asks it every turn. */
  hasPending(): boolean {
    return this.lanes.size > 0 || this.table.hasPending(this.options.settled, this.busy) || (this.options.mode === 'once' && this.table.deferredCount() > 0);
  }

  goneCount(): number {
    return this.table.goneCount(this.passesSinceStart > 0);
  }

  backlogBytes(): number {
    return this.table.totalBacklogBytes();
  }

  private laneDeps(): LaneDeps {
    return {
      chunkBytes: this.options.limits.chunkBytes,
      readAhead: this.options.limits.readAheadChunks,
      parse: this.ports.parse,
      settled: this.options.settled,
      retained: (source, generation) => this.ports.history({ type: 'retained', source, generation }),
      spanAt: (source, generation, offset) => this.ports.history({ type: 'spanAt', source, generation, offset }),
      retainedBytes: (source, generation, from, to) => this.ports.history({ type: 'retainedBytes', source, generation, from, to }),
      spotChecks: this.options.limits.spotChecks,
      spotCheckBytes: this.options.limits.spotCheckBytes,
    };
  }

  /** Give lanes to pending sources up to the per-batch limit. */
  private async openLanes(): Promise<void> {
    const table = this.table;
    const { limits } = this.options;
    // Sources this call gave a lane to, took one from, or failed to open: each has had its turn for this batch.
    const turned = new Set<SourceState>();
    const next = (): SourceState | undefined => table.nextPending(this.options.settled, (state) => turned.has(state) || this.busy(state));
    const waiting = next() !== undefined;
    // A source that had its turn yields to waiting ones: it stops giving chunks at once, and closes once they settled
    // (the next batch is gathered while one is in flight, so a lane that still gave chunks always has some there).
    // A turn, once over, stays over: the source that took it has a lane now and no longer waits, yet the yielding
    // source must not take its place again (two lanes before it in the batch would starve it); it queues again,
    // behind those that waited (fewer visits).
    for (const active of [...this.lanes.values()]) {
      active.yielding ||= active.batches >= limits.sourceTurnBatches && waiting;
      if (active.yielding && !this.uncommitted.has(active.state.plan.id)) {
        turned.add(active.state);
        await this.closeLanes([active]);
      }
    }
    while (this.readingLanes().length < limits.sourcesPerBatch) {
      const state = next();
      if (state === undefined) break;
      turned.add(state);
      table.visit(state);
      try {
        const lane = await Lane.open(
          { id: state.plan.id, path: state.plan.path, format: state.plan.format, cursor: state.cursor, context: {
            conversation: state.plan.conversation.id,
            session: state.plan.conversation.session,
            ownAgentId: state.plan.ownAgentId,
          } },
          this.laneDeps(),
        );
        if (lane.start.cursorUpdate !== null) {
          this.ports.history({ type: 'touch', id: state.plan.id, facts: lane.start.cursorUpdate });
          table.committed(state.plan.id, { ...state.cursor, ...lane.start.cursorUpdate });
        }
        this.lanes.set(state.plan.id, { lane, state, batches: 0, yielding: false });
      } catch (error) {
        if (isCorruption(error) || isDiskFull(error)) throw error; // history.db itself (a retained chunk, a cursor), not the source
        const [seen] = await observe(state.plan.path);
        table.observe(state, seen, serializeError(toHistoryError(error, 'open source')));
      }
    }
  }

  /**
   * Chunks from up to two file lanes, read and parsed outside any transaction.
   * They are uncommitted until `settled` is called with them (after their
   * commit, or when it was given up); `lanes` are every lane open now.
   */
  async gather(): Promise<{ chunks: CommitChunk[]; lanes: ActiveLane[] }> {
    await this.openLanes();
    const lanes = [...this.lanes.values()];
    const reading = this.readingLanes();
    let chunks: CommitChunk[] = [];
    if (reading.length > 0) {
      try {
        chunks = await toCommitChunks(await collectBatch(reading.map((a) => a.lane), this.options.limits), this.ports.resolveProject);
        for (const id of sourcesOf(chunks)) this.uncommitted.set(id, (this.uncommitted.get(id) ?? 0) + 1);
      } catch (error) {
        if (isCorruption(error) || lanes.some((a) => isCorruption(a.lane.failure))) {
          await this.closeLanes(lanes);
          throw lanes.find((a) => isCorruption(a.lane.failure))?.lane.failure ?? error;
        }
        await this.dropLanes(lanes, error);
      }
    }
    return { chunks, lanes };
  }

  /** The history actor committed these cursors. */
  committed(cursors: ReadonlyArray<readonly [string, SourceCursor]>): void {
    for (const [id, cursor] of cursors) this.table.committed(id, cursor);
  }

  /** The batch holding `chunks` (from gather) is over: committed (after `committed`), or given up. */
  settled(chunks: readonly CommitChunk[]): void {
    for (const id of sourcesOf(chunks)) {
      const left = (this.uncommitted.get(id) ?? 1) - 1;
      if (left > 0) this.uncommitted.set(id, left);
      else this.uncommitted.delete(id);
    }
  }

  /** After a batch settled: count its turn for each lane and close the exhausted ones that have nothing left unsettled. */
  async afterBatch(lanes: readonly ActiveLane[]): Promise<void> {
    const finished: ActiveLane[] = [];
    for (const active of lanes) {
      active.batches++;
      if (active.lane.exhausted && !this.uncommitted.has(active.state.plan.id)) finished.push(active);
    }
    await this.closeLanes(finished);
  }

  async closeAll(): Promise<void> {
    await this.closeLanes([...this.lanes.values()]);
  }

  private async dropLanes(lanes: ActiveLane[], error: unknown): Promise<void> {
    const table = this.table;
    for (const active of lanes) {
      const failure = active.lane.failure ?? error;
      const [seen] = await observe(active.state.plan.path);
      table.observe(active.state, seen, serializeError(toHistoryError(failure, 'read source')));
    }
    await this.closeLanes(lanes);
  }

  async closeLanes(lanes: readonly ActiveLane[]): Promise<void> {
    const table = this.table;
    for (const active of lanes) {
      if (this.lanes.get(active.state.plan.id) !== active) continue; // closed already
      this.lanes.delete(active.state.plan.id);
      await active.lane.close().catch(() => undefined);
      const [seen] = await observe(active.state.plan.path);
      table.observe(active.state, seen, active.state.problem);
      // Bytes left behind at the end of a visit are an unfinished last line: wait for it to settle.
      table.waitForTail(active.state, seen !== null && seen.size > active.state.cursor.offset && active.lane.exhausted ? seen : null);
    }
  }

  // ---- what the scrubber sees (src/ingest/scrubber.ts) --------------------

  /** Tracked file sources, in id order. */
  scrubIds(): string[] {
    return [...this.table.all()].map((s) => s.plan.id).sort();
  }

  /** A source the scrubber may compare now: not being read, nothing pending, the file as its cursor last saw it. */
  scrubTarget(id: string): ScrubTarget | null {
    const state = this.table.get(id);
    if (state === undefined || this.lanes.has(id) || state.gone || state.problem !== null) return null;
    const seen = state.observed;
    if (seen === null || seen.identity !== state.cursor.identity || this.table.isPending(state, this.options.settled)) return null;
    return { id, path: state.plan.path, format: state.plan.format, cursor: state.cursor };
  }

  /** The scrubber found a byte of the captured prefix that differs from the file: capture it again as a new generation. */
  restartGeneration(id: string): void {
    const state = this.table.get(id);
    if (state === undefined) return;
    const facts: Partial<SourceCursor> = { ...EMPTY_CURSOR, facts: null, generation: state.cursor.generation + 1 };
    this.ports.history({ type: 'touch', id, facts });
    this.table.committed(id, { ...state.cursor, ...facts });
    this.table.markDirty(state);
  }

  problems(): SourceProblem[] {
    const list: SourceProblem[] = [...this.ports.discovery.skipped];
    for (const { root, files } of this.table.vanishedRoots(this.ports.discovery.rootPaths, this.passesSinceStart > 0, (folder) => existsSync(fsPath(folder)))) {
      list.push({
        path: root,
        code: 'SOURCE_GONE',
        message: `none of the ${files} files captured from this folder exist any more (unmounted, moved or deleted?); what was captured stays retained, and capture resumes when they are back`,
      });
    }
    list.push(...this.table.sourceProblems());
    return list;
  }
}

/** The sources `chunks` belong to, each once. */
function sourcesOf(chunks: readonly CommitChunk[]): Set<string> {
  return new Set(chunks.map((chunk) => chunk.source));
}
