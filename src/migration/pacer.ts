// Migration IO pacing (specification: "Migration payload IO defaults to
// 8 MiB/s, counting reads, writes and chunk checks").
//
// A virtual clock (a token bucket): each chunk of `bytes` that started at `t`
// moves the earliest start of the next chunk to
// max(due, t - burst) + bytes / rate. Work done faster than the rate waits,
// so the payload rate over any long stretch stays at the configured rate.
// Work that falls behind (many tiny chunks, each paying a commit) may catch
// up, but never by more than `burst` worth of time: idle time, such as a
// pressure pause, earns at most one burst of credit.

export interface PacerClock {
  now(): number;
}

const WINDOW_MS = 5000;

export class IoPacer {
  /** Earliest start of the next chunk; null before the first (an empty bucket: no credit at start). */
  private due: number | null = null;
  private readonly recent: Array<{ at: number; bytes: number }> = [];
  private total = 0;

  constructor(
    /** Bytes per second now; null = unpaced. Read per chunk, so a config change applies at once. */
    private readonly rate: () => number | null,
    private readonly burstMs: number,
    private readonly clock: PacerClock = performance,
  ) {}

  get limit(): number | null {
    return this.rate();
  }

  /** Bytes accounted since the pacer was made. */
  get bytes(): number {
    return this.total;
  }

  /** Record `bytes` of payload IO by a chunk that started at `startedAt` (clock ms). */
  account(bytes: number, startedAt: number): void {
    const now = this.clock.now();
    this.total += bytes;
    this.recent.push({ at: now, bytes });
    while (this.recent.length > 0 && (this.recent[0] as { at: number }).at < now - WINDOW_MS) this.recent.shift();
    const rate = this.rate();
    if (rate === null || rate <= 0) return;
    this.due = (this.due === null ? startedAt : Math.max(this.due, startedAt - this.burstMs)) + (bytes * 1000) / rate;
  }

  /** Milliseconds to wait before the next chunk may start. */
  delayMs(): number {
    return this.due === null ? 0 : Math.max(0, this.due - this.clock.now());
  }

  /** Measured payload rate over the last few seconds (bytes per second). */
  measured(): number {
    const now = this.clock.now();
    const live = this.recent.filter((r) => r.at >= now - WINDOW_MS);
    if (live.length === 0) return 0;
    const span = Math.max(1000, now - (live[0] as { at: number }).at);
    return Math.round((live.reduce((n, r) => n + r.bytes, 0) * 1000) / span);
  }
}
