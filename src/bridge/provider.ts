// The bridge record provider: the broker's own records, read-only, one
// bounded unit of work per batch (specification, "Bounded background work":
// bridge envelopes, decisions, archive messages and job snapshots each copy
// one chunk per batch; derived text stops at 512 KiB per batch).
//
// Each batch, in this order:
//   peers      session bindings and peer names learned since the last batch
//              (bindings and aliases for the job filter; the peer directory
//              that gives a message its sender's project);
//   lanes      envelopes (or the live scan on a v6 bridge.db), decisions,
//              archive rows and job snapshots, one chunk each, in an order
//              that rotates every batch so no lane starves on the budget;
//   sweep      once the others are caught up, a chunk of live rows checked
//              for versions not retained yet (read, claimed, reused rowids).
// Message lanes wait until the peers and the job files were read once, so a
// message's project is known when it is captured.
//
// Cursors are the legacy ones (keys.ts): on a migrated 0.29.x home capture
// continues after what the 0.29.17 ingestor captured; on a fresh home they
// start at 0. Nothing advances in memory before the history actor committed
// the batch.

import type { SourceProblem } from '../../protocols/service.ts';
import type { HistoryPaths } from '../config/paths.ts';
import type { Limits } from '../config/limits.ts';
import { BatchEffects, type RecordProvider, type RetainedRow } from '../ingest/provider.ts';
import type { RowBatch, RowDocument } from '../../protocols/rows.ts';
import type { HistoryAsk } from '../../protocols/history.ts';
import { AppliedBindings } from './applied.ts';
import { BridgeBatch } from './batch.ts';
import { brokerError, openBrokerDb, type BrokerDb } from './broker-db.ts';
import { bridgeDocuments } from './documents.ts';
import { JobSweep } from './job-sweep.ts';
import { jobWorkdir } from './jobs.ts';
import { CURSOR_ARCHIVE, CURSOR_DECISIONS, CURSOR_ENVELOPES, CURSOR_JOB_PREFIX, CURSOR_MESSAGES, isBridgeRowSource } from '../keys/bridge.ts';
import { archiveLane, envelopeLane, liveRowLane, type LaneContext, type LaneResult } from './message-lanes.ts';
import { decisionLane, jobLane, readPeers, type PeerCursors } from './other-lanes.ts';
import { PeerDirectory } from './peers.ts';
import { ArchiveQueries, BridgeQueries } from './queries.ts';

export interface BridgeProviderDeps {
  readonly paths: HistoryPaths;
  readonly limits: Limits;
  readonly history: HistoryAsk;
  readonly resolveProject: (cwd: string) => Promise<string>;
  readonly now?: () => number;
}

/** Rows per chunk of a lane (the migration's chunk size), and per sweep step. */
export const BRIDGE_CHUNK_ROWS = 32;
export const SWEEP_ROWS = 64;
/** Peer rows per table per batch. */
export const PEER_ROWS = 256;

type LaneName = 'messages' | 'decisions' | 'archive' | 'jobs';
const LANES: readonly LaneName[] = ['messages', 'decisions', 'archive', 'jobs'];

interface Connection<Q> {
  readonly db: BrokerDb;
  readonly queries: Q;
  readonly openedAt: number;
}

function afterOf(value: string | undefined): number {
  if (value === undefined) return 0;
  try {
    const parsed = JSON.parse(value) as { after?: unknown; offset?: unknown };
    const after = typeof parsed.after === 'number' ? parsed.after : Number(value);
    // A legacy cursor with an offset stopped inside a row: offer that row again (its unfinished copy is completed).
    const back = typeof parsed.offset === 'number' && parsed.offset > 0 ? 1 : 0;
    return Number.isFinite(after) ? Math.max(0, after - back) : 0;
  } catch {
    return 0;
  }
}

export class BridgeProvider implements RecordProvider {
  readonly name = 'bridge';
  private loaded = false;
  private readonly after: Record<'envelopes' | 'scan' | 'decisions' | 'archive', number> = { envelopes: 0, scan: 0, decisions: 0, archive: 0 };
  private readonly markers = new Set<string>();
  private peerCursors: PeerCursors = { bindings: { at: -Infinity, rowid: 0 }, names: { at: -Infinity, rowid: 0 } };
  private peersCaughtUp = false;
  private readonly more: Record<LaneName, boolean> = { messages: true, decisions: true, archive: true, jobs: true };
  private readonly sweepState = { after: 0, running: false, passes: 0, startedAt: 0 };
  private rotation = 0;
  private missing = 0;
  private readonly directory = new PeerDirectory();
  private readonly jobs: JobSweep;
  private live: Connection<BridgeQueries> | null = null;
  private archive: Connection<ArchiveQueries> | null = null;
  private readonly problemsByKey = new Map<string, SourceProblem>();
  private readonly outstanding = new BatchEffects();
  private readonly applied = new AppliedBindings();
  private readonly now: () => number;

  constructor(private readonly deps: BridgeProviderDeps) {
    this.now = deps.now ?? Date.now;
    this.jobs = new JobSweep({
      home: deps.paths.bridgeHome,
      revisitMs: deps.limits.discoveryRevisitMs,
      now: this.now,
      captured: (marker) => this.markers.has(marker),
      onJob: (name, job) => {
        const workdir = jobWorkdir(job);
        if (workdir !== null) this.directory.learnJob(name, workdir);
      },
    });
  }

  get backlog(): boolean {
    if (!this.loaded || !this.peersCaughtUp || this.jobs.backlog || this.sweepState.passes === 0) return true;
    return LANES.some((lane) => this.more[lane]);
  }

  private load(): void {
    const one = (key: string): string | undefined => this.deps.history({ type: 'cursors', prefix: key }).find(([k]) => k === key)?.[1];
    this.after.envelopes = afterOf(one(CURSOR_ENVELOPES));
    this.after.decisions = afterOf(one(CURSOR_DECISIONS));
    this.after.archive = afterOf(one(CURSOR_ARCHIVE));
    this.after.scan = afterOf(one(CURSOR_MESSAGES));
    for (const [key] of this.deps.history({ type: 'cursors', prefix: CURSOR_JOB_PREFIX })) this.markers.add(key);
    this.loaded = true;
  }

  /** Open (or reopen, every revisit interval, to see schema upgrades) a broker database. */
  private connect<Q>(current: Connection<Q> | null, path: string, make: (db: BrokerDb) => Q): Connection<Q> | null {
    if (current !== null && this.now() - current.openedAt < this.deps.limits.discoveryRevisitMs) return current;
    if (current !== null) current.db.close();
    const db = openBrokerDb(path);
    if (db === null) return null;
    try {
      return { db, queries: make(db), openedAt: this.now() };
    } catch (error) {
      db.close();
      throw error;
    }
  }

  private disconnect(): void {
    this.live?.db.close();
    this.archive?.db.close();
    this.live = null;
    this.archive = null;
  }

  private problem(key: string, error: unknown, path: string, step: string): void {
    const e = brokerError(error, path, step);
    if (e.code !== 'SOURCE_BUSY') this.problemsByKey.set(key, { path, code: e.code, message: e.message });
  }

  async next(): Promise<RowBatch | null> {
    if (!this.loaded) this.load();
    const { paths, limits } = this.deps;
    const batch = new BridgeBatch({ bodyBytes: limits.batchBodyBytes, rawBytes: limits.batchRawBytes });
    const ctx: LaneContext = { batch, history: this.deps.history, directory: this.directory, resolveProject: this.deps.resolveProject };
    try {
      this.live = this.connect(this.live, paths.bridgeDb, (db) => new BridgeQueries(db));
      this.archive = this.connect(this.archive, paths.archiveDb, (db) => new ArchiveQueries(db));
      this.problemsByKey.delete('open');
    } catch (error) {
      this.problem('open', error, paths.bridgeDb, 'open broker database');
      this.disconnect();
    }
    this.peers(batch);
    const order = LANES.map((_, i) => LANES[(i + this.rotation) % LANES.length] as LaneName);
    this.rotation++;
    for (const lane of order) await this.runLane(lane, ctx);
    await this.sweep(ctx);
    this.applied.filter(batch);
    const effects = batch.effects;
    if (batch.empty) {
      for (const effect of effects) effect(); // nothing to commit: what the effects record is already true
      return null;
    }
    const rows = batch.toRowBatch(this.name);
    this.outstanding.hold(rows, effects);
    return rows;
  }

  private peers(batch: BridgeBatch): void {
    const live = this.live?.queries;
    if (live === undefined) {
      this.peersCaughtUp = true;
      return;
    }
    try {
      const { learned, next, caughtUp } = readPeers(live, this.peerCursors, PEER_ROWS);
      for (const [name, peer] of learned.peers) this.directory.learnPeer(name, peer);
      batch.bindings.push(...learned.bindings);
      batch.aliases.push(...learned.aliases);
      batch.effects.push(() => {
        this.peerCursors = next;
        if (caughtUp) this.peersCaughtUp = true;
      });
      this.problemsByKey.delete('peers');
    } catch (error) {
      this.problem('peers', error, this.deps.paths.bridgeDb, 'read session bindings');
    }
  }

  /** Message lanes wait for the directory that gives messages their projects. */
  private get directoryReady(): boolean {
    return this.peersCaughtUp && !this.jobs.neverSwept;
  }

  private async runLane(lane: LaneName, ctx: LaneContext): Promise<void> {
    const live = this.live?.queries ?? null;
    const archive = this.archive?.queries ?? null;
    const path = lane === 'archive' ? this.deps.paths.archiveDb : this.deps.paths.bridgeDb;
    try {
      if (lane === 'jobs') {
        const { taken, snapshots } = await jobLane(ctx, this.jobs, (marker) => this.markers.has(marker), BRIDGE_CHUNK_ROWS);
        ctx.batch.effects.push(() => {
          this.jobs.drop(taken);
          for (const s of snapshots) this.markers.add(`${CURSOR_JOB_PREFIX}${s.name}:${s.sha256}`);
        });
        this.more.jobs = this.jobs.backlog;
        return;
      }
      let result: LaneResult | null = null;
      let key: keyof BridgeProvider['after'] = 'decisions';
      let cursor = CURSOR_DECISIONS;
      if (lane === 'messages' && live !== null && live.tables.messages && this.directoryReady) {
        const scan = !live.tables.envelopes;
        key = scan ? 'scan' : 'envelopes';
        cursor = scan ? CURSOR_MESSAGES : CURSOR_ENVELOPES;
        result = scan ? await liveRowLane(ctx, live, this.after.scan, BRIDGE_CHUNK_ROWS) : await envelopeLane(ctx, live, archive, this.after.envelopes, BRIDGE_CHUNK_ROWS);
      } else if (lane === 'decisions' && live !== null && live.tables.decisions) {
        result = await decisionLane(ctx, live, this.after.decisions, BRIDGE_CHUNK_ROWS);
      } else if (lane === 'archive' && archive !== null && this.directoryReady) {
        key = 'archive';
        cursor = CURSOR_ARCHIVE;
        result = await archiveLane(ctx, archive, this.after.archive, BRIDGE_CHUNK_ROWS);
      }
      const waiting = (lane === 'messages' || lane === 'archive') && !this.directoryReady && live !== null;
      this.more[lane] = result?.more ?? waiting;
      if (result === null || result.after === this.after[key]) return;
      const { after, missing } = result;
      ctx.batch.cursors.set(cursor, JSON.stringify({ after }));
      ctx.batch.effects.push(() => {
        this.after[key] = after;
        this.missing += missing;
      });
      this.problemsByKey.delete(lane);
    } catch (error) {
      this.more[lane] = true;
      this.problem(lane, error, path, `read ${lane}`);
    }
  }

  /**
   * A chunk of the live-row sweep, once the message lanes are caught up. A
   * pass starts every revisit interval; the first pass of a process is part
   * of its backlog (a once run ends after it), later ones run at idle pace.
   */
  private async sweep(ctx: LaneContext): Promise<void> {
    const live = this.live?.queries;
    const state = this.sweepState;
    if (live === undefined || !live.tables.messages) {
      if (state.passes === 0) state.passes = 1; // no (readable) messages table: nothing to sweep
      return;
    }
    if (this.more.messages || this.more.archive || !this.directoryReady) return;
    if (!state.running) {
      if (state.passes > 0 && this.now() - state.startedAt < this.deps.limits.discoveryRevisitMs) return;
      state.running = true;
      state.after = 0;
      state.startedAt = this.now();
    }
    try {
      const result = await liveRowLane(ctx, live, state.after, SWEEP_ROWS);
      ctx.batch.effects.push(() => {
        state.after = result.after;
        if (!result.more) {
          state.running = false;
          state.passes++;
        }
      });
    } catch (error) {
      this.problem('sweep', error, this.deps.paths.bridgeDb, 'sweep messages');
    }
  }

  committed(batch: RowBatch): void {
    this.outstanding.committed(batch);
  }

  abandoned(batch: RowBatch): void {
    this.outstanding.abandoned(batch);
  }

  problems(): SourceProblem[] {
    const list = [...this.problemsByKey.values(), ...this.jobs.problems()];
    if (this.missing > 0) {
      list.push({ path: this.deps.paths.bridgeDb, code: 'SOURCE_GONE', message: `${this.missing} envelope keys name messages found in neither bridge.db nor archive.db` });
    }
    return list;
  }

  owns(source: string): boolean {
    return isBridgeRowSource(source);
  }

  documentsFor(row: RetainedRow): RowDocument[] {
    return bridgeDocuments(row, (source, generation) => this.deps.history({ type: 'retained', source, generation }));
  }

  async close(): Promise<void> {
    this.disconnect();
  }
}
