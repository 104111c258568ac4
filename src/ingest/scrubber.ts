// The scrubber: proves, eventually and at a bounded cost, that the captured
// prefix of every file source still equals the file. The cheap checks made
// when a file changes (identity, size, the head, the bytes before the cursor,
// a few windows of the prefix: see lane.ts) miss an edit in the middle that
// keeps the size, or one whose mtime was set back. The scrubber re-reads each
// captured prefix and compares it, record by record, with the retained bytes;
// where a byte differs the source starts a new generation at offset 0 (the
// old one stays retained), so the store again holds what the file holds.
//
// Bounds: it runs only when ingestion is idle and not paused (pressure, the
// config switch, a cooldown), at `bytesPerSecond` counting the file bytes and
// the store bytes it reads plus a fixed cost per file visited, and visits at
// most LIMITS.scrubSourcesPerStep files a step. A sweep over every file starts
// at most once per sweep interval; between sweeps it does nothing, so its
// idle work never grows with unchanged sources beyond that budget. Progress
// (and what was verified) is kept in the store, so a restart continues the
// sweep instead of starting over.

import type { Limits } from '../config/limits.ts';
import type { ScrubStatus } from '../../protocols/service.ts';
import type { ScrubConfig } from '../config/scrub-config.ts';
import { openSourceFile } from '../os/source-file.ts';
import { identityOf } from '../sources/identity.ts';
import type { HistoryAsk, ScrubProgress } from '../../protocols/history.ts';
import type { SourceCursor } from '../../protocols/sources.ts';
import type { LineFormat } from '../../protocols/records.ts';
import { readAt } from './read-at.ts';
import { retainedForm } from './retained-form.ts';

/** A file source the scrubber may verify now: not being read, nothing pending, the file as the cursor saw it. */
export interface ScrubTarget {
  readonly id: string;
  readonly path: string;
  readonly format: LineFormat;
  readonly cursor: SourceCursor;
}

export interface ScrubPorts {
  readonly history: HistoryAsk;
  /** Ids of the file sources being tracked, in id order. */
  readonly ids: () => string[];
  /** The source, if it can be verified now. */
  readonly target: (id: string) => ScrubTarget | null;
  /** A byte of the captured prefix differs from the file: start a new generation. */
  readonly restart: (id: string) => void;
}


const SAVE_EVERY_MS = 10_000;
/** Largest read the scrubber makes at once. */
const READ_BYTES = 256 * 1024;

interface Current {
  readonly id: string;
  readonly generation: number;
  position: number;
}

export class Scrubber {
  private progress: ScrubProgress;
  private ids: string[] | null = null;
  private index = 0;
  private current: Current | null = null;
  private lastStepAt: number | null = null;
  private savedAt = 0;
  private dirty = false;
  /** Sweeps completed that started after beginSweep(). */
  private sweepsSinceBegin = 0;

  constructor(
    private readonly ports: ScrubPorts,
    private readonly limits: Limits,
    private readonly config: ScrubConfig,
  ) {
    this.progress = ports.history({ type: 'scrubProgress' });
  }

  /** Start a sweep now, from the first source (ingest --once --verify). */
  beginSweep(now: number): void {
    this.progress = { ...this.progress, sweepStartedAt: now, after: '', sweepSources: 0, sweepBytes: 0, sweepMismatches: 0 };
    this.ids = null;
    this.current = null;
    this.sweepsSinceBegin = 0;
    this.dirty = true;
  }

  get sweptSinceBegin(): boolean {
    return this.sweepsSinceBegin > 0;
  }

  private nextSweepAt(): number | null {
    if (this.config.bytesPerSecond === 0) return null;
    if (this.progress.sweepStartedAt !== null) return null;
    return this.progress.lastSweepStartedAt === null ? 0 : this.progress.lastSweepStartedAt + this.config.sweepIntervalMs;
  }

  /** One idle step at the configured pace. */
  async idle(now: number): Promise<void> {
    const rate = this.config.bytesPerSecond;
    if (rate === 0) return;
    const elapsed = this.lastStepAt === null ? this.limits.idlePollMs : now - this.lastStepAt;
    this.lastStepAt = now;
    const due = this.nextSweepAt();
    if (due !== null && now < due) return;
    await this.step(now, Math.floor((rate * Math.min(elapsed, this.limits.scrubBurstMs)) / 1000));
  }

  /** Verify up to `budget` bytes (store and file bytes counted). */
  async step(now: number, budget: number): Promise<void> {
    if (this.progress.sweepStartedAt === null) this.progress = { ...this.progress, sweepStartedAt: now, after: '', sweepSources: 0, sweepBytes: 0, sweepMismatches: 0 };
    let left = budget;
    let visits = 0;
    while (left > 0 && visits < this.limits.scrubSourcesPerStep) {
      const current = this.current ?? this.nextSource();
      if (current === null) {
        this.finishSweep(now);
        break;
      }
      visits++;
      left -= this.limits.scrubSourceCostBytes;
      const spent = await this.verify(current, left, now);
      left -= spent;
    }
    if (this.dirty && (now - this.savedAt >= SAVE_EVERY_MS || this.progress.sweepStartedAt === null)) this.save(now);
  }

  private nextSource(): Current | null {
    if (this.ids === null) {
      this.ids = this.ports.ids();
      const after = this.progress.after;
      this.index = after === '' ? 0 : lowerBound(this.ids, after, true);
    }
    const id = this.ids[this.index++];
    if (id === undefined) return null;
    const target = this.ports.target(id);
    this.current = { id, generation: target?.cursor.generation ?? 0, position: 0 };
    return this.current;
  }

  /** Compare part of the current source; returns the bytes spent. */
  private async verify(current: Current, budget: number, now: number): Promise<number> {
    const target = this.ports.target(current.id);
    if (target === null || target.cursor.generation !== current.generation) {
      this.done(current, false); // busy, changed or gone: capture deals with it; verified next sweep
      return 0;
    }
    const end = target.cursor.offset;
    const handle = await openSourceFile(target.path).catch(() => null);
    if (handle === null) {
      this.done(current, false);
      return 0;
    }
    let spent = 0;
    try {
      const stat = await handle.stat();
      if (identityOf(stat) !== target.cursor.identity || stat.size < end) {
        this.done(current, false);
        return 0;
      }
      while (current.position < end && spent < budget) {
        const spans = this.ports.history({ type: 'spansFrom', source: current.id, generation: current.generation, offset: current.position, maxBytes: Math.min(READ_BYTES, budget - spent) });
        const span = spans.find((s) => s.offset + s.raw.length > current.position);
        if (span === undefined || span.offset > current.position) break; // no record here (a legacy gap): nothing to compare
        for (const s of spans) {
          if (s.offset >= end) break;
          const length = Math.min(s.raw.length, end - s.offset);
          const now_ = retainedForm(target.format, await readAt(handle, s.offset, length));
          spent += 2 * length;
          if (!sameBytes(now_, s.raw.subarray(0, length))) {
            this.mismatch(current, target, s.offset + firstDifference(now_, s.raw), now);
            return spent;
          }
          this.progress = { ...this.progress, verifiedBytes: this.progress.verifiedBytes + length, sweepBytes: this.progress.sweepBytes + length };
          current.position = s.offset + length;
        }
        this.dirty = true;
      }
      if (current.position >= end || spent < budget) this.done(current, current.position >= end);
      return spent;
    } finally {
      await handle.close();
    }
  }

  private mismatch(current: Current, target: ScrubTarget, offset: number, now: number): void {
    this.ports.restart(current.id);
    this.progress = {
      ...this.progress,
      mismatches: this.progress.mismatches + 1,
      sweepMismatches: this.progress.sweepMismatches + 1,
      lastMismatch: { source: current.id, path: target.path, generation: current.generation, offset, at: now },
    };
    this.done(current, false);
    this.save(now);
  }

  private done(current: Current, verified: boolean): void {
    this.current = null;
    this.progress = { ...this.progress, after: current.id, sweepSources: this.progress.sweepSources + (verified ? 1 : 0) };
    this.dirty = true;
  }

  private finishSweep(now: number): void {
    this.progress = {
      ...this.progress,
      sweeps: this.progress.sweeps + 1,
      lastSweepStartedAt: this.progress.sweepStartedAt,
      lastSweepAt: now,
      lastSweep: { sources: this.progress.sweepSources, bytes: this.progress.sweepBytes, mismatches: this.progress.sweepMismatches },
      sweepStartedAt: null,
      after: '',
    };
    this.ids = null;
    this.sweepsSinceBegin++;
    this.dirty = true;
  }

  private save(now: number): void {
    this.ports.history({ type: 'saveScrub', progress: this.progress });
    this.savedAt = now;
    this.dirty = false;
  }

  /** Keep what was verified when the service stops. */
  flush(now: number): void {
    if (this.dirty) this.save(now);
  }

  status(): ScrubStatus {
    const p = this.progress;
    return {
      bytesPerSecond: this.config.bytesPerSecond,
      sweeps: p.sweeps,
      lastSweepAt: p.lastSweepAt,
      sweep: p.sweepStartedAt === null ? null : { startedAt: p.sweepStartedAt, sources: p.sweepSources, bytes: p.sweepBytes, mismatches: p.sweepMismatches, of: this.ids?.length ?? this.ports.ids().length },
      lastSweep: p.lastSweep,
      nextSweepAt: this.nextSweepAt(),
      verifiedBytes: p.verifiedBytes,
      mismatches: p.mismatches,
      lastMismatch: p.lastMismatch,
    };
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
}

function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

/** The first index whose id is greater than `id` (strictly when `after`). */
function lowerBound(ids: readonly string[], id: string, after: boolean): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid] as string;
    if (v < id || (after && v === id)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
