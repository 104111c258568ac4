// The scheduler's view of file sources: what each file looked like when last
// observed (stat), what is committed (cursor), and whether it needs a visit.
// Purely in memory; the committed cursors it holds are copies of what the
// history actor wrote.

import { dirname, sep } from 'node:path';
import type { HistoryErrorShape } from '../../protocols/errors.ts';
import type { SourceProblem } from '../../protocols/service.ts';
import type { SourceCursor, SourcePlan, StoredSource } from '../../protocols/sources.ts';
import { EMPTY_CURSOR } from '../store/source-rows.ts';
import { FILE_FORMATS } from '../store/reindex-store.ts';

/** Folders of a root's captured files looked at before it is called vanished. */
const FOLDERS_ASKED = 32;

function isFileFormat(format: string): boolean {
  return (FILE_FORMATS as readonly string[]).includes(format);
}

export interface Observation {
  readonly identity: string;
  readonly size: number;
  readonly mtimeMs: number;
}

export interface SourceState {
  plan: SourcePlan;
  cursor: SourceCursor;
  observed: Observation | null;
  /** A watch event arrived since the last visit (set through SourceTable.markDirty). */
  readonly dirty: boolean;
  /** The last visit stopped at an unfinished last line of a file that looked like this. */
  waitingTail: Observation | null;
  /** Visits so far; the least visited pending source goes first (counted by SourceTable.visit). */
  readonly visits: number;
  problem: HistoryErrorShape | null;
  /** The file is gone from disk (Claude's 30-day cleanup, a moved file): nothing to read, everything retained. */
  gone: boolean;
  /**
   * Discovery passes completed when the file at this path was first seen with
   * another identity than the cursor's, or null. Such a file is either a
   * replacement (a new generation of this source) or a new file that took the
   * name of one that moved away (found at its new path by identity): it is
   * read only after a pass that started later has completed, so a move found
   * anywhere under the roots wins over a new generation.
   */
  replacedSeen: number | null;
}

/** What the table itself may change of a state (dirty and visits are kept in step with its candidate counts). */
type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** Whether `a` goes before `b` among pending sources: dirty first, then the least visited (ties: candidate order). */
function goesBefore(a: SourceState, b: SourceState): boolean {
  return a.dirty !== b.dirty ? a.dirty : a.visits < b.visits;
}

function sameObservation(a: Observation | null, b: Observation | null): boolean {
  return a !== null && b !== null && a.identity === b.identity && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

export class SourceTable {
  private readonly byId = new Map<string, SourceState>();
  private readonly byPath = new Map<string, SourceState>();
  /** Active sources in activation order (a source, once active, stays in the table). */
  private readonly order: SourceState[] = [];
  /** Stored rows not (yet) matched by discovery, by id. */
  private readonly stored = new Map<string, StoredSource>();
  /** Current path of every stored row, for sources not (yet) active in this process. */
  private readonly storedByPath = new Map<string, string>();
  /** Every identity a stored or active source's cursor named (a file keeps its identity when it moves). */
  private readonly byIdentity = new Map<string, Set<string>>();
  /** Discovery passes completed (see SourceState.replacedSeen). */
  passes = 0;
  /** A pass is running: an observation made now waits for the pass after it. */
  passRunning = false;
  /**
   * Bumped by every change of what the memoised whole-table answers below
   * read (activation, a move, an observation whose gone or problem differs;
   * not a commit): status asks for them every second, and with 10,000
   * sources a scan each time was most of an idle service's CPU; during a
   * backlog of 15,000 files, a scan after every commit was 0.6 % of a core
   * late in the 8 GiB capture (perf).
   */
  private version = 0;
  /** Bytes observed but not yet captured, over every source: kept in step by each change of an observation or a cursor. */
  private backlog = 0;
  private readonly answers = new Map<string, { version: number; value: unknown }>();
  /**
   * Sources that may be pending (see nextPending): each one activated,
   * observed, committed or given a waiting tail since it was last asked, and
   * each whose answer can change with no such change (an unfinished tail that
   * settles with time, a replaced file that waits for a pass). A source
   * outside it is not pending, because isPending reads only what those
   * changes set. Asking only these keeps an idle turn's cost independent of
   * the number of unchanged sources.
   */
  private readonly candidates = new Set<SourceState>();
  /**
   * How many candidates have each visit count, and how many are dirty. The
   * best key among them bounds the best pending source from below, so the
   * scan for the next source to visit stops at the first pending one that
   * has it: during a backlog of 15,000 files, one of the first few, where a
   * sort of every pending source cost 0.76 ms, three times a batch (perf of
   * the 8 GiB capture; README, Benchmarks).
   */
  private readonly candidateVisits = new Map<number, number>();
  private dirtyCandidates = 0;
  /** Sources whose file was seen changing, until recentlyChanged finds their last change older than its window. */
  private readonly changing = new Set<SourceState>();

  /** `compute()`, taken again only when the table changed since it was last taken under `key`. */
  private memo<T>(key: string, compute: () => T): T {
    const hit = this.answers.get(key);
    if (hit !== undefined && hit.version === this.version) return hit.value as T;
    const value = compute();
    this.answers.set(key, { version: this.version, value });
    return value;
  }

  constructor(rows: readonly StoredSource[]) {
    for (const row of rows) {
      this.stored.set(row.id, row);
      this.storedByPath.set(row.path, row.id);
      this.remember(row.cursor.identity, row.id);
    }
  }

  private addCandidate(state: SourceState): void {
    if (this.candidates.has(state)) return;
    this.candidates.add(state);
    this.countVisits(state.visits, 1);
    if (state.dirty) this.dirtyCandidates++;
  }

  private dropCandidate(state: SourceState): void {
    if (!this.candidates.delete(state)) return;
    this.countVisits(state.visits, -1);
    if (state.dirty) this.dirtyCandidates--;
  }

  /** One candidate more (+1) or fewer (-1) with `visits` visits; a count that reaches 0 leaves the map. */
  private countVisits(visits: number, change: 1 | -1): void {
    const n = (this.candidateVisits.get(visits) ?? 0) + change;
    if (n > 0) this.candidateVisits.set(visits, n);
    else this.candidateVisits.delete(visits);
  }

  /** A watch event (or a restarted generation) asks for a visit ahead of the others. */
  markDirty(state: SourceState): void {
    if (state.dirty) return;
    (state as Writable<SourceState>).dirty = true;
    if (this.candidates.has(state)) this.dirtyCandidates++;
  }

  /** A visit begins: the source is no longer dirty and has one visit more. */
  visit(state: SourceState): void {
    if (this.candidates.has(state)) {
      this.countVisits(state.visits, -1);
      this.countVisits(state.visits + 1, 1);
      if (state.dirty) this.dirtyCandidates--;
    }
    const writable = state as Writable<SourceState>;
    writable.dirty = false;
    writable.visits++;
  }

  private remember(identity: string, id: string): void {
    if (identity === '') return;
    let ids = this.byIdentity.get(identity);
    if (ids === undefined) this.byIdentity.set(identity, (ids = new Set()));
    ids.add(id);
  }

  get size(): number {
    return this.byId.size;
  }

  all(): IterableIterator<SourceState> {
    return this.byId.values();
  }

  /** The active source at `index` of the activation order, modulo the table's size (a round robin's cursor). */
  nth(index: number): SourceState | undefined {
    return this.order.length === 0 ? undefined : this.order[index % this.order.length];
  }

  byPathGet(path: string): SourceState | undefined {
    return this.byPath.get(path);
  }

  get(id: string): SourceState | undefined {
    return this.byId.get(id);
  }

  /** Sources whose cursor named this identity, now or in an earlier generation. */
  sourcesWithIdentity(identity: string): readonly string[] {
    return [...(this.byIdentity.get(identity) ?? [])];
  }

  /** The source registered at `path` (active, or stored and not yet active). */
  sourceAtPath(path: string): string | undefined {
    return this.byPath.get(path)?.plan.id ?? this.storedByPath.get(path);
  }

  /** Where a source's file is now, as far as this table knows. */
  pathOf(id: string): string | undefined {
    return this.byId.get(id)?.plan.path ?? this.stored.get(id)?.path;
  }

  cursorOf(id: string): SourceCursor | undefined {
    const state = this.byId.get(id);
    if (state !== undefined) return state.cursor;
    const row = this.stored.get(id);
    return row?.cursor;
  }

  /**
   * `plan` in the conversation its source was registered with. A source's
   * records all belong to that conversation (conversation_sources, from which
   * a reindex derives them again), even when its file has since moved to a
   * name that classifies as another conversation (a new file that took the
   * name of an archived rollout, archived in turn under its own thread's
   * name). A plan of no registered source is returned as it is.
   */
  inRegisteredConversation(plan: SourcePlan): SourcePlan {
    const active = this.byId.get(plan.id);
    if (active !== undefined) return active.plan.conversation.id === plan.conversation.id ? plan : { ...plan, conversation: active.plan.conversation };
    const row = this.stored.get(plan.id);
    if (row === undefined || row.conversation === plan.conversation.id) return plan;
    return { ...plan, conversation: { ...plan.conversation, id: row.conversation, session: row.session ?? plan.conversation.session } };
  }

  /** `wanted`, or the first `wanted#<n>` no stored or active source uses (a new file at the name of one that moved away). */
  freeId(wanted: string): string {
    if (!this.byId.has(wanted) && !this.stored.has(wanted)) return wanted;
    for (let n = 2; ; n++) {
      const id = `${wanted}#${n}`;
      if (!this.byId.has(id) && !this.stored.has(id)) return id;
    }
  }

  /** The history actor recorded that source `id` now lives at `path`. */
  moved(id: string, path: string): void {
    const row = this.stored.get(id);
    if (row === undefined) return;
    this.version++;
    if (this.storedByPath.get(row.path) === id) this.storedByPath.delete(row.path);
    this.stored.set(id, { ...row, path });
    this.storedByPath.set(path, id);
  }

  /** Activate a classified source; its cursor comes from the stored row when there is one. */
  activate(plan: SourcePlan): SourceState {
    this.version++;
    const existing = this.byId.get(plan.id);
    if (existing !== undefined) {
      if (existing.plan.path !== plan.path) this.byPath.delete(existing.plan.path);
      existing.plan = plan;
      this.byPath.set(plan.path, existing);
      this.addCandidate(existing);
      return existing;
    }
    const row = this.stored.get(plan.id);
    const state: SourceState = {
      plan,
      cursor: row?.cursor ?? EMPTY_CURSOR,
      observed: null,
      dirty: false,
      waitingTail: null,
      visits: row?.checked ?? 0,
      problem: null,
      gone: false,
      replacedSeen: null,
    };
    this.byId.set(plan.id, state);
    this.byPath.set(plan.path, state);
    this.order.push(state);
    this.addCandidate(state);
    return state;
  }

  committed(id: string, cursor: SourceCursor): void {
    const state = this.byId.get(id);
    if (state === undefined) return;
    this.addCandidate(state);
    const backlog = this.backlogBytes(state);
    state.cursor = cursor;
    this.backlog += this.backlogBytes(state) - backlog;
    // The table's own id string, not `id`, which came with the writer thread's reply (a copy) and which the set
    // would keep: at 9,879 sources those copies were 1.5 MiB of the history worker's heap (a heap snapshot).
    this.remember(cursor.identity, state.plan.id);
    if (state.observed !== null && state.observed.identity === cursor.identity) state.replacedSeen = null;
  }

  observe(state: SourceState, observation: Observation | null, problem: HistoryErrorShape | null = null): void {
    const [gone, before, seen, backlog] = [state.gone, state.problem, state.observed, this.backlogBytes(state)];
    this.observeState(state, observation, problem);
    this.backlog += this.backlogBytes(state) - backlog;
    this.addCandidate(state);
    const changed = observation !== seen && !sameObservation(seen, observation);
    if (changed && observation !== null) this.changing.add(state);
    if (state.gone !== gone || state.problem !== before) this.version++;
  }

  private observeState(state: SourceState, observation: Observation | null, problem: HistoryErrorShape | null): void {
    state.gone = problem?.code === 'SOURCE_GONE';
    const real = state.gone ? null : problem;
    if (!sameObservation(state.observed, observation)) state.problem = real;
    else if (real !== null) state.problem = real;
    state.observed = observation;
    const cursor = state.cursor;
    if (observation === null || cursor.offset === 0 || cursor.identity === '' || observation.identity === cursor.identity) state.replacedSeen = null;
    else if (state.replacedSeen === null) state.replacedSeen = this.passes + (this.passRunning ? 1 : 0);
  }

  /** Files seen with a new identity that wait for a discovery pass before a new generation starts. */
  deferredCount(): number {
    let n = 0;
    for (const state of this.byId.values()) if (state.replacedSeen !== null && !state.gone && this.passes <= state.replacedSeen) n++;
    return n;
  }

  /**
   * Captured file sources that are not on disk: active ones that vanished,
   * plus stored ones a complete discovery pass did not find again.
   */
  goneCount(passComplete: boolean): number {
    return this.memo(`gone:${passComplete}`, () => this.countGone(passComplete));
  }

  private countGone(passComplete: boolean): number {
    let n = 0;
    for (const state of this.byId.values()) if (state.gone) n++;
    if (passComplete) {
      for (const row of this.stored.values()) if (!this.byId.has(row.id) && isFileFormat(row.format)) n++;
    }
    return n;
  }

  /**
   * Roots whose captured files all no longer exist and whose folders that held
   * them are gone too (an unmounted, moved or deleted folder). Files deleted
   * one by one (Claude Code's 30-day cleanup) leave their folders behind and
   * are no problem. `folderExists` is asked about at most FOLDERS_ASKED folders
   * per root, and only for a root whose every file is gone. Stored sources no
   * discovery found again count once a pass is complete, like goneCount.
   */
  vanishedRoots(roots: readonly string[], passComplete: boolean, folderExists: (path: string) => boolean): Array<{ root: string; files: number }> {
    // The scan is memoised; the folders are asked every time (one can vanish with no change of the table).
    return this.memo(`vanished:${passComplete}:${roots.join('\0')}`, () => this.rootsAllGone(roots, passComplete))
      .filter((c) => !c.folders.some(folderExists))
      .map(({ root, files }) => ({ root, files }));
  }

  /** Roots whose every captured file is gone, with up to FOLDERS_ASKED folders that held them. */
  private rootsAllGone(roots: readonly string[], passComplete: boolean): Array<{ root: string; files: number; folders: string[] }> {
    const counts = new Map<string, { files: number; gone: number; folders: Set<string> }>();
    const count = (path: string, gone: boolean): void => {
      const root = roots.find((r) => path.startsWith(r.endsWith(sep) ? r : `${r}${sep}`));
      if (root === undefined) return;
      const entry = counts.get(root) ?? { files: 0, gone: 0, folders: new Set<string>() };
      entry.files++;
      if (gone) entry.gone++;
      if (entry.folders.size < FOLDERS_ASKED) entry.folders.add(dirname(path));
      counts.set(root, entry);
    };
    for (const state of this.byId.values()) count(state.plan.path, state.gone);
    for (const row of this.stored.values()) if (!this.byId.has(row.id) && isFileFormat(row.format)) count(row.path, passComplete);
    return [...counts].filter(([, c]) => c.files > 0 && c.gone === c.files).map(([root, c]) => ({ root, files: c.files, folders: [...c.folders] }));
  }

  /**
   * Up to `max` sources whose file last changed at or after `sinceMs` (by its
   * mtime), the ones returned moving to the back so that all get turns.
   * Sources whose change is older leave the set.
   */
  recentlyChanged(sinceMs: number, max: number): SourceState[] {
    const list: SourceState[] = [];
    for (const state of this.changing) {
      if (list.length >= max) break;
      this.changing.delete(state);
      if (state.observed === null || state.observed.mtimeMs < sinceMs) continue;
      list.push(state);
    }
    for (const state of list) this.changing.add(state);
    return list;
  }

  /** The problem of each source whose last observation or visit had one (an unreadable file, a failed read), in activation order. */
  sourceProblems(): readonly SourceProblem[] {
    return this.memo('problems', () => {
      const list: SourceProblem[] = [];
      for (const { plan, problem } of this.byId.values()) if (problem !== null) list.push({ path: plan.path, code: problem.code, message: problem.message });
      return list;
    });
  }

  /** A visit stopped at an unfinished last line of a file that looked like `tail` (null: it did not). */
  waitForTail(state: SourceState, tail: Observation | null): void {
    state.waitingTail = tail;
    this.addCandidate(state);
  }

  /**
   * The pending source to visit next among those `busy` does not exclude:
   * dirty ones first, then the least visited, then in candidate order. Asks
   * the candidates in order and stops at one with the best key any candidate
   * has (see candidateVisits); a busy one stays a candidate, to be asked when
   * its visit is over.
   */
  nextPending(settledAt: (mtimeMs: number) => boolean, busy: (state: SourceState) => boolean): SourceState | undefined {
    const bestDirty = this.dirtyCandidates > 0;
    let bestVisits = Infinity;
    for (const visits of this.candidateVisits.keys()) bestVisits = Math.min(bestVisits, visits);
    let next: SourceState | undefined;
    for (const state of this.candidates) {
      if (busy(state) || !this.stillPending(state, settledAt)) continue;
      if (next !== undefined && !goesBefore(state, next)) continue;
      next = state;
      if (state.dirty === bestDirty && state.visits === bestVisits) break;
    }
    return next;
  }

  /** How many sources are pending, `busy` ones aside (a whole scan: for status, once a second). */
  pendingCount(settledAt: (mtimeMs: number) => boolean, busy: (state: SourceState) => boolean): number {
    let n = 0;
    for (const state of this.candidates) if (!busy(state) && this.stillPending(state, settledAt)) n++;
    return n;
  }

  /** Whether any source is pending, `busy` ones aside. */
  hasPending(settledAt: (mtimeMs: number) => boolean, busy: (state: SourceState) => boolean): boolean {
    for (const state of this.candidates) if (!busy(state) && this.stillPending(state, settledAt)) return true;
    return false;
  }

  /** isPending for a candidate; one that is not and cannot become pending with time or a pass stops being one. */
  private stillPending(state: SourceState, settledAt: (mtimeMs: number) => boolean): boolean {
    if (this.isPending(state, settledAt)) return true;
    if (state.waitingTail === null && state.replacedSeen === null) this.dropCandidate(state);
    return false;
  }

  /** Whether a visit could capture something or must decide on a new generation. */
  isPending(state: SourceState, settledAt: (mtimeMs: number) => boolean): boolean {
    const seen = state.observed;
    if (state.gone) return false;
    if (seen === null) return state.problem === null;
    const cursor = state.cursor;
    if (cursor.offset > 0 && cursor.identity !== '' && seen.identity !== cursor.identity) return state.replacedSeen === null || this.passes > state.replacedSeen;
    if (seen.size < cursor.offset) return true;
    if (seen.size > cursor.offset) {
      const waiting = state.waitingTail;
      return !(sameObservation(waiting, seen) && !settledAt(seen.mtimeMs));
    }
    return cursor.size === seen.size && cursor.mtimeMs !== -1 && cursor.mtimeMs !== seen.mtimeMs;
  }

  /** Bytes observed but not yet captured, over every source. */
  totalBacklogBytes(): number {
    return this.backlog;
  }

  /**
   * Bytes on disk but not yet captured. The file's size is the newer of the
   * last stat and the one a lane recorded in the cursor: a lane reading a
   * file that grows after it was observed learns its size first.
   */
  backlogBytes(state: SourceState): number {
    const seen = state.observed;
    if (seen === null) return 0;
    const cursor = state.cursor;
    const size = cursor.identity === seen.identity && cursor.mtimeMs >= seen.mtimeMs ? Math.max(seen.size, cursor.size) : seen.size;
    return Math.max(0, size - cursor.offset);
  }
}
