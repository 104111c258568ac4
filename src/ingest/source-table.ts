// The scheduler's view of file sources: what each file looked like when last
// observed (stat), what is committed (cursor), and whether it needs a visit.
// Purely in memory; the committed cursors it holds are copies of what the
// history actor wrote.

import type { HistoryErrorShape } from '../../protocols/errors.ts';
import type { SourceCursor, SourcePlan, StoredSource } from '../../protocols/sources.ts';
import { EMPTY_CURSOR } from '../store/source-rows.ts';
import { FILE_FORMATS } from '../store/reindex-store.ts';

function isFileFormat(format: string): boolean {
  return (FILE_FORMATS as readonly string[]).includes(format);
}

/**
 * Whether a stored row's offset counts bytes of the file. The 0.29.17
 * ingestor registered the run logs of OpenCode jobs with format 'sqlite'
 * (chosen from the agent before the kind) and never read them: their offset
 * counts visits, not bytes, so capture of such a file starts at 0.
 */
function hasByteCursor(row: StoredSource): boolean {
  return !(row.format === 'sqlite' && !row.id.startsWith('opencode:'));
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
  /** A watch event arrived since the last visit. */
  dirty: boolean;
  /** The last visit stopped at an unfinished last line of a file that looked like this. */
  waitingTail: Observation | null;
  /** Visits so far; the least visited pending source goes first. */
  visits: number;
  problem: HistoryErrorShape | null;
  /** The file is gone from disk (Claude's 30-day cleanup, a moved file): nothing to read, everything retained. */
  gone: boolean;
}

function sameObservation(a: Observation | null, b: Observation | null): boolean {
  return a !== null && b !== null && a.identity === b.identity && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

export class SourceTable {
  private readonly byId = new Map<string, SourceState>();
  private readonly byPath = new Map<string, SourceState>();
  /** Stored rows not (yet) matched by discovery, by id. */
  private readonly stored = new Map<string, StoredSource>();
  /** Identity of every stored or active source, for move detection. */
  private readonly byIdentity = new Map<string, string>();

  constructor(rows: readonly StoredSource[]) {
    for (const row of rows) {
      this.stored.set(row.id, row);
      if (row.cursor.identity !== '') this.byIdentity.set(row.cursor.identity, row.id);
    }
  }

  get size(): number {
    return this.byId.size;
  }

  all(): IterableIterator<SourceState> {
    return this.byId.values();
  }

  byPathGet(path: string): SourceState | undefined {
    return this.byPath.get(path);
  }

  get(id: string): SourceState | undefined {
    return this.byId.get(id);
  }

  /** A stored source whose cursor names this identity (a file that moved), if any. */
  sourceWithIdentity(identity: string): string | undefined {
    return this.byIdentity.get(identity);
  }

  storedRow(id: string): StoredSource | undefined {
    return this.stored.get(id);
  }

  /** Activate a classified source; its cursor comes from the stored row when there is one. */
  activate(plan: SourcePlan): SourceState {
    const existing = this.byId.get(plan.id);
    if (existing !== undefined) {
      if (existing.plan.path !== plan.path) this.byPath.delete(existing.plan.path);
      existing.plan = plan;
      this.byPath.set(plan.path, existing);
      return existing;
    }
    const row = this.stored.get(plan.id);
    const state: SourceState = {
      plan,
      cursor: row === undefined || !hasByteCursor(row) ? EMPTY_CURSOR : row.cursor,
      observed: null,
      dirty: false,
      waitingTail: null,
      visits: row?.checked ?? 0,
      problem: null,
      gone: false,
    };
    this.byId.set(plan.id, state);
    this.byPath.set(plan.path, state);
    return state;
  }

  committed(id: string, cursor: SourceCursor): void {
    const state = this.byId.get(id);
    if (state === undefined) return;
    state.cursor = cursor;
    if (cursor.identity !== '') this.byIdentity.set(cursor.identity, id);
  }

  observe(state: SourceState, observation: Observation | null, problem: HistoryErrorShape | null = null): void {
    state.gone = problem?.code === 'SOURCE_GONE';
    const real = state.gone ? null : problem;
    if (!sameObservation(state.observed, observation)) state.problem = real;
    else if (real !== null) state.problem = real;
    state.observed = observation;
  }

  /**
   * Captured file sources that are not on disk: active ones that vanished,
   * plus stored ones a complete discovery pass did not find again.
   */
  goneCount(passComplete: boolean): number {
    let n = 0;
    for (const state of this.byId.values()) if (state.gone) n++;
    if (passComplete) {
      for (const row of this.stored.values()) if (!this.byId.has(row.id) && isFileFormat(row.format)) n++;
    }
    return n;
  }

  /** Whether a visit could capture something or must decide on a new generation. */
  isPending(state: SourceState, settledAt: (mtimeMs: number) => boolean): boolean {
    const seen = state.observed;
    if (state.gone) return false;
    if (seen === null) return state.problem === null;
    const cursor = state.cursor;
    if (cursor.offset > 0 && cursor.identity !== '' && seen.identity !== cursor.identity) return true;
    if (seen.size < cursor.offset) return true;
    if (seen.size > cursor.offset) {
      const waiting = state.waitingTail;
      return !(sameObservation(waiting, seen) && !settledAt(seen.mtimeMs));
    }
    return cursor.size === seen.size && cursor.mtimeMs !== -1 && cursor.mtimeMs !== seen.mtimeMs;
  }

  /** Bytes observed but not yet captured. */
  backlogBytes(state: SourceState): number {
    return state.observed === null ? 0 : Math.max(0, state.observed.size - state.cursor.offset);
  }
}
