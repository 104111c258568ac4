// One OpenCode database: its committed capture state and one bounded step of
// work over it. A step (outside any transaction, on a connection opened for
// the step only):
//   1. discovery  the next 32 sessions after the (time_updated, id) cursor,
//                 whenever the database changed or the revisit time came;
//   2. active     on a change, sessions most recently updated or recently
//                 copied are checked for rows after their cursors;
//   3. copy       sessions with rows to copy, messages then parts, until the
//                 step's budget is spent;
//   4. sweep      a slice of every known session (32 per step), so a row
//                 changed without its session being touched is still found.
// The first sweep after a start covers every session captured before.

import { HistoryError } from '../../../protocols/errors.ts';
import type { SourceProblem } from '../../../protocols/service.ts';
import type { Limits } from '../../config/limits.ts';
import type { HistoryAsk } from '../../../protocols/history.ts';
import { accessMode, contentKey, journalKind, observeFiles, openReadOnly, type Db } from './access.ts';
import { copyTable } from './copy.ts';
import { formatCursor, parseCursor, START, type RowCursor } from './cursor.ts';
import { discoverSessions, retainSession } from './discover.ts';
import { discoveryCursorKey, rowCursorKey, rowCursorPrefix, type RowTable } from '../../keys/opencode.ts';
import { describeFailure } from './problems.ts';
import { Queries, type Position } from './queries.ts';
import { missingRequired, readColumns } from './schema.ts';
import type { SnapshotStore } from './snapshot.ts';
import { StepOutput, type SessionRef, type StepBudget, type StepDeps } from './step.ts';

const TABLES: readonly RowTable[] = ['message', 'part'];
const RECENT_SESSIONS = 8;
const HOT_MS = 10 * 60_000;
const SWEEP_PER_STEP = 32;

export interface DatabaseDeps {
  readonly history: HistoryAsk;
  readonly resolveProject: (cwd: string) => Promise<string>;
  readonly snapshots: SnapshotStore;
  readonly limits: Limits;
  readonly budget: StepBudget;
  readonly mode: 'serve' | 'once';
  readonly now: () => number;
}

export class OpenCodeDatabase {
  problem: SourceProblem | null = null;
  private loaded = false;
  private discovery: Position = START;
  private discoveryDone = false;
  private readonly sessions = new Map<string, SessionRef>();
  private readonly dirty = new Set<string>();
  /** Serve mode: sessions with a row still being written, and when to look again. */
  private readonly waiting = new Map<string, number>();
  private readonly hot = new Map<string, number>();
  private sweepQueue: string[] = [];
  private sweepDone = false;
  private sweepFinishedAt = 0;
  private lastKey: string | null = null;
  private revisitAt = 0;
  private blockedUntil = 0;
  /** A broken database is left alone until its files change. */
  private blockedKey: string | null = null;
  private snapshotKey: string | null = null;

  constructor(
    readonly path: string,
    readonly tag: string,
    private readonly deps: DatabaseDeps,
  ) {}

  get backlog(): boolean {
    if (this.blockedKey !== null || this.deps.now() < this.blockedUntil) return false;
    return !this.loaded || !this.discoveryDone || this.dirty.size > 0 || !this.sweepDone;
  }

  private get snapshotName(): string {
    return this.tag === '' ? 'opencode' : this.tag.replace(/[^A-Za-z0-9._-]/g, '_');
  }

  /** One step; its records, links, cursors and effects go into `out` only if the whole step succeeded. */
  async step(out: StepOutput): Promise<void> {
    const now = this.deps.now();
    if (now < this.blockedUntil) return;
    const files = observeFiles(this.path);
    if (files === null) return; // gone since it was located: what was captured stays
    const key = contentKey(files);
    if (this.blockedKey !== null) {
      if (key === this.blockedKey) return;
      this.blockedKey = null;
    }
    const changed = key !== this.lastKey;
    const due = now >= this.revisitAt;
    for (const [id, at] of this.waiting) {
      if (at <= now) {
        this.waiting.delete(id);
        this.dirty.add(id);
      }
    }
    if (!this.backlog && !changed && !due) return;
    if (changed || due) this.discoveryDone = false;
    this.revisitAt = now + this.deps.limits.discoveryRevisitMs;
    const local = new StepOutput(this.deps.budget);
    let db: Db | null = null;
    try {
      const mode = accessMode(await journalKind(this.path), files);
      let readPath = this.path;
      if (mode === 'snapshot') {
        if (this.snapshotKey !== key) {
          this.snapshotKey = null;
          this.snapshotKey = await this.deps.snapshots.take(this.path, this.snapshotName, files);
        }
        readPath = this.deps.snapshots.pathFor(this.snapshotName);
      } else {
        await this.dropSnapshot();
      }
      db = openReadOnly(readPath);
      const columns = readColumns(db);
      const missing = missingRequired(columns);
      if (missing.length > 0) {
        throw new HistoryError('SOURCE_SCHEMA', `OpenCode database lacks ${missing.join(', ')} (an unsupported OpenCode version?); retried when the file changes`, { path: this.path });
      }
      const q = new Queries(db, columns);
      const stepDeps: StepDeps = {
        tag: this.tag,
        q,
        retained: (source, generation) => this.deps.history({ type: 'retained', source, generation }),
        retainedAmong: (sources) => new Set(this.deps.history({ type: 'retainedSources', sources })),
        settledBefore: this.deps.mode === 'once' ? null : now - this.deps.limits.settleMs,
      };
      if (!this.loaded) this.load();
      if (!this.discoveryDone) await this.discover(local, stepDeps);
      if (changed) await this.check(local, stepDeps, this.activeSessions(q, now));
      if (!local.exhausted) await this.check(local, stepDeps, this.sweepSlice(changed, now));
      this.copyDirty(local, stepDeps, now);
      this.lastKey = key;
      this.problem = null;
      out.absorb(local);
    } catch (error) {
      const failure = describeFailure(this.path, error);
      this.problem = failure.problem;
      if (failure.busy) this.blockedUntil = this.deps.mode === 'once' ? Number.POSITIVE_INFINITY : now + this.deps.limits.cooldownMs;
      else this.blockedKey = key;
    } finally {
      db?.close();
    }
    if (this.snapshotKey !== null && !this.backlog && this.waiting.size === 0 && local.records.length === 0) await this.dropSnapshot();
  }

  private async dropSnapshot(): Promise<void> {
    if (this.snapshotKey === null) return;
    this.snapshotKey = null;
    await this.deps.snapshots.discard(this.snapshotName);
  }

  /** Committed cursors of this database (once per process). */
  private load(): void {
    for (const table of TABLES) {
      const prefix = rowCursorPrefix(this.tag, table);
      for (const [key, value] of this.deps.history({ type: 'cursors', prefix })) {
        const session = this.session(key.slice(prefix.length));
        session.cursors[table] = parseCursor(value);
        if (session.cursors[table].pending !== null) this.dirty.add(session.id);
      }
    }
    const revisions = rowCursorPrefix(this.tag, 'session');
    for (const [key, value] of this.deps.history({ type: 'cursors', prefix: revisions })) {
      const cursor = parseCursor(value);
      if (cursor.at >= 0) this.session(key.slice(revisions.length)).revision = cursor.at;
    }
    const discoveryKey = discoveryCursorKey(this.tag);
    const stored = this.deps.history({ type: 'cursors', prefix: discoveryKey }).find(([key]) => key === discoveryKey);
    const cursor = parseCursor(stored?.[1]);
    this.discovery = { at: cursor.at, id: cursor.id };
    this.sweepQueue = [...this.sessions.keys()];
    this.sweepDone = this.sweepQueue.length === 0;
    this.loaded = true;
  }

  private session(id: string): SessionRef {
    let session = this.sessions.get(id);
    if (session === undefined) {
      session = { id, parent: null, project: null, revision: null, cursors: { message: START, part: START } };
      this.sessions.set(id, session);
    }
    return session;
  }

  private async discover(out: StepOutput, deps: StepDeps): Promise<void> {
    const page = await discoverSessions(out, deps, this.discovery, (id) => this.sessions.get(id), this.deps.resolveProject);
    for (const session of page.sessions) {
      this.sessions.set(session.id, session);
      this.dirty.add(session.id);
    }
    if (page.next !== this.discovery) out.cursors.set(discoveryCursorKey(this.tag), formatCursor({ at: page.next.at, id: page.next.id, pending: null }));
    out.effects.push(() => {
      this.discovery = page.next;
      if (page.done) this.discoveryDone = true;
    });
  }

  private hasWork(q: Queries, session: SessionRef): boolean {
    return TABLES.some((table) => session.cursors[table].pending !== null || q.hasRowsAfter(table, session.id, session.cursors[table]));
  }

  /** After a change: the sessions most likely to have changed. */
  private activeSessions(q: Queries, now: number): string[] {
    const candidates = new Set(q.recentSessions(RECENT_SESSIONS));
    for (const [id, at] of this.hot) {
      if (now - at > HOT_MS) this.hot.delete(id);
      else candidates.add(id);
    }
    return [...candidates];
  }

  private sweepSlice(changed: boolean, now: number): string[] {
    if (this.sweepDone) {
      if (!changed || now - this.sweepFinishedAt < this.deps.limits.discoveryRevisitMs) return [];
      this.sweepQueue = [...this.sessions.keys()];
      this.sweepDone = false;
    }
    const slice = this.sweepQueue.splice(0, SWEEP_PER_STEP);
    if (this.sweepQueue.length === 0) {
      this.sweepDone = true;
      this.sweepFinishedAt = now;
    }
    return slice;
  }

  /**
   * Look at sessions that may have changed without discovery seeing it (a
   * session row whose new time_updated is not after the discovery cursor, a
   * row written without touching its session): retain a changed session row,
   * and mark sessions with rows after their cursors for copying.
   */
  private async check(out: StepOutput, deps: StepDeps, ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const session = this.sessions.get(id);
      if (session === undefined || this.waiting.has(id)) continue;
      const row = deps.q.session(id);
      if (row !== undefined && row.time_updated !== session.revision) await retainSession(out, deps, row, session, this.deps.resolveProject);
      if (this.hasWork(deps.q, session)) this.dirty.add(id);
    }
  }

  private copyDirty(out: StepOutput, deps: StepDeps, now: number): void {
    for (const id of [...this.dirty]) {
      if (out.exhausted) return;
      const session = this.sessions.get(id);
      if (session === undefined) {
        this.dirty.delete(id);
        continue;
      }
      const before = out.records.length;
      let caughtUp = true;
      let unsettled = false;
      let spent = false;
      for (const table of TABLES) {
        const start: RowCursor = session.cursors[table];
        const progress = copyTable(out, deps, session, table, start);
        if (progress.cursor !== start) {
          out.cursors.set(rowCursorKey(this.tag, table, id), formatCursor(progress.cursor));
          out.effects.push(() => {
            session.cursors[table] = progress.cursor;
          });
        }
        caughtUp &&= progress.caughtUp;
        unsettled ||= progress.unsettled;
        spent = !progress.caughtUp && !progress.unsettled;
        if (spent) break; // the budget is spent: this session continues next step
      }
      if (out.records.length > before) this.hot.set(id, now);
      if (!spent) {
        out.effects.push(() => {
          this.dirty.delete(id);
          if (unsettled) this.waiting.set(id, now + this.deps.limits.settleMs);
        });
      }
    }
  }
}
