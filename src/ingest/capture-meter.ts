// Rate, percentage and ETA of the capture backlog (protocols/capture.ts).
// The scheduler reports the file bytes of every committed batch; whoever
// builds the status asks for the progress with the backlog as it is now. A
// backlog "run" begins with the first pending source or committed byte after
// being caught up and ends when nothing is pending and discovery is done, so
// the percentage is that of the current backlog, not of everything ever.
// Invariants: O(1) per batch; at most one rate sample a second, none older
// than the window, so memory is bounded; the clock is passed in (tests).

import { CAUGHT_UP, type CaptureProgress } from '../../protocols/capture.ts';

/** The rate is measured over this much recent time (or since the backlog began, when later). */
export const RATE_WINDOW_MS = 30_000;
const SAMPLE_EVERY_MS = 1000;
/** Below this much measured time the rate is too noisy to project an ETA from. */
const MIN_SPAN_MS = 2000;

export interface BacklogNow {
  readonly sources: number;
  readonly bytes: number;
  readonly discovering: boolean;
}

interface Sample {
  readonly at: number;
  /** Bytes captured before this instant. */
  readonly total: number;
}

export class CaptureMeter {
  private total = 0;
  private run: { readonly since: number; readonly base: number } | null = null;
  private samples: Sample[] = [];
  private last: CaptureProgress['last'] = null;

  /** File bytes of a batch that committed at `now`. */
  captured(bytes: number, now: number): void {
    if (bytes <= 0) return;
    if (this.run === null) this.begin(now);
    this.sample(now);
    this.total += bytes;
  }

  progress(backlog: BacklogNow, now: number): CaptureProgress {
    const waiting = backlog.bytes > 0 || backlog.sources > 0;
    if (this.run === null && waiting) this.begin(now);
    if (this.run !== null && !waiting && !backlog.discovering) {
      this.last = { since: this.run.since, until: now, capturedBytes: this.total - this.run.base };
      this.run = null;
    }
    const run = this.run;
    if (run === null) return { ...CAUGHT_UP, discovering: backlog.discovering, last: this.last };
    const capturedBytes = this.total - run.base;
    const foundBytes = capturedBytes + backlog.bytes;
    const rate = this.rate(now);
    let etaSeconds: number | null = null;
    if (backlog.bytes === 0) etaSeconds = backlog.sources === 0 ? 0 : null;
    else if (rate !== null && rate > 0) etaSeconds = Math.ceil(backlog.bytes / rate);
    return {
      since: run.since,
      capturedBytes,
      foundBytes,
      percent: foundBytes === 0 ? null : Math.floor((capturedBytes / foundBytes) * 10_000) / 100,
      bytesPerSecond: rate === null ? 0 : Math.round(rate),
      etaSeconds,
      discovering: backlog.discovering,
      last: this.last,
    };
  }

  private begin(now: number): void {
    this.run = { since: now, base: this.total };
    this.samples = [{ at: now, total: this.total }];
  }

  private sample(now: number): void {
    const last = this.samples[this.samples.length - 1];
    if (last !== undefined && now - last.at < SAMPLE_EVERY_MS) return;
    this.samples.push({ at: now, total: this.total });
    while (this.samples.length > 1 && (this.samples[0] as Sample).at < now - RATE_WINDOW_MS) this.samples.shift();
  }

  /** Bytes per second since the oldest sample inside the window; null while that span is too short. */
  private rate(now: number): number | null {
    const reference = this.samples.find((s) => s.at >= now - RATE_WINDOW_MS);
    if (reference === undefined) return 0; // nothing captured for a whole window
    const span = now - reference.at;
    if (span < MIN_SPAN_MS) return null;
    return ((this.total - reference.total) * 1000) / span;
  }
}
