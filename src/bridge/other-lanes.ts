// The lanes that capture decisions, job snapshots and what the broker
// learned about peers (bindings and aliases).

import type { JobSweep } from './job-sweep.ts';
import { decisionDocument, decisionProject, decisionSeed } from './decisions.ts';
import { decisionPart, decisionSource, jobSnapshotSource } from '../keys/bridge.ts';
import type { LaneContext, LaneResult } from './message-lanes.ts';
import { emptyLearned, learnPeerName, learnSessionBinding, type Learned } from './peers.ts';
import type { BridgeQueries, LearnedCursor } from './queries.ts';
import { jobAt, jobDocument, jobSeed, jobSession, jobWorkdir, markerOf, type JobSnapshot } from './jobs.ts';
import { rowRaw } from './messages.ts';
import { decisionFingerprint, generationFor, retainedVersions } from './versions.ts';
import { agentOf } from '../keys/bridge.ts';

/** Decision revisions by rowid after the `durable-decisions` cursor. */
export async function decisionLane(ctx: LaneContext, live: BridgeQueries, after: number, limit: number): Promise<LaneResult> {
  const rows = live.decisionsAfter(after, limit);
  const known = retainedVersions(ctx.history, rows.map((row) => decisionSource(row.id, row.revision)));
  let handled = 0;
  for (const row of rows) {
    if (ctx.batch.exhausted) break;
    const source = decisionSource(row.id, row.revision);
    const raw = rowRaw(row);
    const fingerprint = decisionFingerprint(row);
    const generation = generationFor([...(known.get(source) ?? []), ...ctx.batch.addedVersions(source)], fingerprint, raw);
    if (generation !== null) {
      const scoped = decisionProject(row);
      const cwd = scoped ?? ctx.directory.cwdOf(row.author_name);
      ctx.batch.addVersion(
        {
          source,
          generation,
          conversation: decisionSeed(row),
          project: cwd === null ? null : await ctx.resolveProject(cwd),
          at: row.created_at,
          part: decisionPart(row.id),
          raw,
          document: decisionDocument(row),
        },
        fingerprint,
      );
    }
    handled++;
  }
  return { after: handled === 0 ? after : (rows[handled - 1] as { n: number }).n, more: rows.length === limit || handled < rows.length, missing: 0 };
}

export interface PeerCursors {
  bindings: LearnedCursor;
  names: LearnedCursor;
}

/**
 * Session bindings and peer names learned since `cursors` (both tables, a
 * chunk each). Returns the learned rows and the positions after them, and
 * whether both tables are read to their end.
 */
export function readPeers(live: BridgeQueries, cursors: PeerCursors, limit: number): { learned: Learned; next: PeerCursors; caughtUp: boolean } {
  const learned = emptyLearned();
  const next = { ...cursors };
  let caughtUp = true;
  if (live.tables.sessionBindings) {
    const rows = live.sessionBindingsAfter(cursors.bindings, limit);
    for (const { row, rowid } of rows) {
      learnSessionBinding(row, learned);
      next.bindings = { at: Number(row.learned_at), rowid };
    }
    caughtUp &&= rows.length < limit;
  }
  if (live.tables.peerNames) {
    const rows = live.peerNamesAfter(cursors.names, limit);
    for (const { row, rowid } of rows) {
      learnPeerName(row, learned);
      next.names = { at: Number(row.learned_at), rowid };
    }
    caughtUp &&= rows.length < limit;
  }
  return { learned, next, caughtUp };
}

/** Queued job snapshots (a chunk): their records, markers, and the bindings of the jobs' sessions. */
export async function jobLane(ctx: LaneContext, sweep: JobSweep, captured: (marker: string) => boolean, limit: number): Promise<{ taken: number; snapshots: JobSnapshot[] }> {
  const queued = await sweep.peek(limit);
  const snapshots: JobSnapshot[] = [];
  let taken = 0;
  for (const snapshot of queued) {
    if (ctx.batch.exhausted) break;
    taken++;
    const marker = markerOf(snapshot);
    if (captured(marker)) continue;
    const workdir = jobWorkdir(snapshot.job);
    const project = workdir === null ? null : await ctx.resolveProject(workdir);
    // Job snapshots are keyed by their content: one generation, written once (an identical legacy record is reused).
    ctx.batch.addVersion(
      {
        source: jobSnapshotSource(snapshot.name, snapshot.sha256),
        generation: 0,
        conversation: jobSeed(snapshot),
        project,
        at: jobAt(snapshot.job),
        part: null,
        raw: snapshot.raw,
        document: jobDocument(snapshot),
      },
      `bytes:${snapshot.sha256}`,
    );
    ctx.batch.cursors.set(marker, '1');
    const session = jobSession(snapshot.job);
    if (session !== null) {
      ctx.batch.bindings.push({ session, agent: agentOf(snapshot.job.agent), cwd: workdir ?? '', job: snapshot.name, project: project ?? '' });
      ctx.batch.aliases.push({ alias: snapshot.name, session, job: snapshot.name }, { alias: session, session, job: snapshot.name });
    }
    snapshots.push(snapshot);
  }
  return { taken, snapshots };
}
