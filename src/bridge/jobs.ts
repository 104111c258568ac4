// Saved job snapshots (specification, "Bounded background work": queued job
// snapshots stop at 100 entries or 8 MiB, allowing the final snapshot to
// cross that byte budget; uncaptured jobs are reconsidered on the next sweep).
//
// Jobs live in <home>/jobs.json (active) and archive/jobs-<ms>-<uuid>.json,
// archive/jobs.json.overflow.json-* (aged out), each `{"jobs": [...], "version": N}`
// (docs/legacy-bridge-layout.md §5). A snapshot is one job object as JSON;
// it is keyed by the job name and the sha256 of that JSON
// (job-snapshot:<name>:<sha256>, marker cursor durable-job:<name>:<sha256>),
// so every distinct state of a job is retained once, whichever file held it.
// Archived files are read first, then the active one (the 0.29.17 order).

import { opendir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RowDocument } from '../../protocols/rows.ts';
import type { ConversationSeed } from '../../protocols/sources.ts';
import { extractText } from '../text/extract.ts';
import { agentOf, jobConversation, jobMarker } from '../keys/bridge.ts';
import { sha256Hex } from './messages.ts';

export interface JobSnapshot {
  readonly name: string;
  readonly sha256: string;
  readonly raw: Buffer;
  readonly job: Readonly<Record<string, unknown>>;
  /** The file it was read from (for problems). */
  readonly file: string;
}

export const JOB_QUEUE_ENTRIES = 100;
export const JOB_QUEUE_BYTES = 8 * 1024 * 1024;

const ARCHIVED_JOBS = /^(?:jobs-.+\.json|jobs\.json\.overflow\.json-.+)$/;

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function snapshotOf(job: unknown, file: string): JobSnapshot | null {
  if (job === null || typeof job !== 'object' || Array.isArray(job)) return null;
  const record = job as Record<string, unknown>;
  const name = text(record.name);
  if (name === null) return null;
  const raw = Buffer.from(JSON.stringify(record), 'utf8');
  return { name, sha256: sha256Hex(raw), raw, job: record, file };
}

export function markerOf(snapshot: Pick<JobSnapshot, 'name' | 'sha256'>): string {
  return jobMarker(snapshot.name, snapshot.sha256);
}

/** The CLI session a job ran in (older stores name it session or threadId). */
export function jobSession(job: Readonly<Record<string, unknown>>): string | null {
  return text(job.sessionId) ?? text(job.session) ?? text(job.threadId);
}

export function jobWorkdir(job: Readonly<Record<string, unknown>>): string | null {
  return text(job.workdir);
}

export function jobSeed(snapshot: JobSnapshot): ConversationSeed {
  return { id: jobConversation(snapshot.name), agent: agentOf(snapshot.job.agent), session: jobSession(snapshot.job) ?? '', parent: null, kind: 'report', job: snapshot.name };
}

export function jobAt(job: Readonly<Record<string, unknown>>): number {
  for (const key of ['finishedAt', 'startedAt']) {
    const value = job[key];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    if (typeof value === 'string' && Number.isFinite(Date.parse(value))) return Date.parse(value);
  }
  return 0;
}

const SKIP = new Set(['id', 'startedAt', 'finishedAt', 'metadataVersion', 'host', 'sessionId', 'session', 'threadId', 'rootSession', 'supervisor', 'version', 'workdir', 'repoRoot', 'path']);

export function jobDocument(snapshot: JobSnapshot): RowDocument {
  return {
    text: extractText(snapshot.job, { skipKeys: SKIP }),
    offset: 0,
    line: 0,
    kind: 'report',
    agent: agentOf(snapshot.job.agent),
    job: snapshot.name,
    session: jobSession(snapshot.job),
  };
}

/** The job files of a bridge home: archived ones (by name), then jobs.json. */
export async function jobFiles(home: string): Promise<string[]> {
  const archived: string[] = [];
  try {
    const dir = await opendir(join(home, 'archive'));
    for await (const entry of dir) if (entry.isFile() && ARCHIVED_JOBS.test(entry.name)) archived.push(join(home, 'archive', entry.name));
  } catch {
    // no archive folder yet
  }
  return [...archived.sort(), join(home, 'jobs.json')];
}

export interface JobFile {
  readonly path: string;
  /** size:mtime, to skip a file that was fully captured and has not changed. */
  readonly signature: string;
  readonly jobs: readonly unknown[];
}

/** Read one job file; null when it does not exist. Throws on a file that is not a job store. */
export async function readJobFile(path: string): Promise<JobFile | null> {
  let signature: string;
  try {
    const s = await stat(path);
    if (!s.isFile()) return null;
    signature = `${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
  const value = JSON.parse(await readFile(path, 'utf8')) as unknown;
  const jobs = (value as { jobs?: unknown } | null)?.jobs;
  if (!Array.isArray(jobs)) throw new Error(`${path} has no "jobs" array`);
  return { path, signature, jobs };
}

/**
 * Queue uncaptured snapshots in file order until JOB_QUEUE_ENTRIES entries or
 * JOB_QUEUE_BYTES bytes (the snapshot that crosses the byte budget is
 * queued). Returns the queue and whether snapshots were left for the next sweep.
 */
export function queueSnapshots(snapshots: Iterable<JobSnapshot>, captured: (marker: string) => boolean): { queue: JobSnapshot[]; more: boolean } {
  const queue: JobSnapshot[] = [];
  const queued = new Set<string>();
  let bytes = 0;
  for (const snapshot of snapshots) {
    const marker = markerOf(snapshot);
    if (captured(marker) || queued.has(marker)) continue;
    if (queue.length >= JOB_QUEUE_ENTRIES || bytes >= JOB_QUEUE_BYTES) return { queue, more: true };
    queue.push(snapshot);
    queued.add(marker);
    bytes += snapshot.raw.length;
  }
  return { queue, more: false };
}
