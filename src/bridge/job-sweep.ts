// The job sweep: reads the job files when due (first time, every revisit
// interval, when jobs.json changed, or at once when the previous sweep left
// snapshots for later), and queues the snapshots not captured yet. A file is
// skipped while it is unchanged since a sweep found every one of its
// snapshots captured.

import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceProblem } from '../../protocols/service.ts';
import { type JobSnapshot, jobFiles, markerOf, queueSnapshots, readJobFile, snapshotOf } from './jobs.ts';

export interface JobSweepDeps {
  readonly home: string;
  readonly revisitMs: number;
  readonly now: () => number;
  /** Whether a snapshot marker is committed. */
  readonly captured: (marker: string) => boolean;
  /** Every job read (the provider learns job workdirs from it). */
  readonly onJob?: (name: string, job: Readonly<Record<string, unknown>>) => void;
}

export class JobSweep {
  private queue: JobSnapshot[] = [];
  private more = false;
  private sweptAt: number | null = null;
  private activeSignature = '';
  private readonly done = new Map<string, string>();
  private readonly problemsByPath = new Map<string, SourceProblem>();

  constructor(private readonly deps: JobSweepDeps) {}

  /** Snapshots are queued, or a sweep is due that may queue some. */
  get backlog(): boolean {
    return this.queue.length > 0 || this.more || this.sweptAt === null;
  }

  get neverSwept(): boolean {
    return this.sweptAt === null;
  }

  problems(): SourceProblem[] {
    return [...this.problemsByPath.values()];
  }

  private async activeChanged(): Promise<boolean> {
    try {
      const s = await stat(join(this.deps.home, 'jobs.json'));
      return `${s.size}:${s.mtimeMs}` !== this.activeSignature;
    } catch {
      return this.activeSignature !== '';
    }
  }

  private async due(): Promise<boolean> {
    if (this.queue.length > 0) return false;
    if (this.sweptAt === null || this.more) return true;
    if (this.deps.now() - this.sweptAt >= this.deps.revisitMs) return true;
    return this.activeChanged();
  }

  private async sweep(): Promise<void> {
    this.sweptAt = this.deps.now();
    const snapshots: JobSnapshot[] = [];
    const fresh = new Map<string, string>();
    for (const path of await jobFiles(this.deps.home)) {
      let file;
      try {
        file = await readJobFile(path);
        this.problemsByPath.delete(path);
      } catch (error) {
        this.problemsByPath.set(path, { path, code: 'SOURCE_UNREADABLE', message: `job store not readable: ${(error as Error).message}` });
        continue;
      }
      if (file === null) continue;
      if (path.endsWith('/jobs.json') && !path.includes('/archive/')) this.activeSignature = file.signature;
      if (this.done.get(path) === file.signature) continue;
      const own = file.jobs.map((job) => snapshotOf(job, path)).filter((s): s is JobSnapshot => s !== null);
      for (const snapshot of own) this.deps.onJob?.(snapshot.name, snapshot.job);
      if (own.every((s) => this.deps.captured(markerOf(s)))) fresh.set(path, file.signature);
      snapshots.push(...own);
    }
    for (const [path, signature] of fresh) this.done.set(path, signature);
    const { queue, more } = queueSnapshots(snapshots, this.deps.captured);
    this.queue = queue;
    this.more = more;
  }

  /** Up to `max` queued snapshots (after a sweep, if one is due); they stay queued until dropped. */
  async peek(max: number): Promise<readonly JobSnapshot[]> {
    if (await this.due()) await this.sweep();
    return this.queue.slice(0, max);
  }

  /** The first `count` queued snapshots were committed. */
  drop(count: number): void {
    this.queue = this.queue.slice(count);
  }
}
