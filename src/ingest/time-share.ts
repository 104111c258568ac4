// A bound on the share of recent wall time one kind of work may take, for
// work that yields to another (project mirrors yield to capture). Both the
// work's time and the wall time between checks decay by the same factor at
// every check, so the share is over the recent past, not the whole run.

export class TimeShare {
  private spent = 0;
  private total = 0;
  private last: number;

  constructor(
    /** Largest share of wall time, 0..1. */
    private readonly share: number,
    private readonly now: () => number = () => performance.now(),
    private readonly decay = 0.98,
  ) {
    this.last = now();
  }

  /** Whether the work may run now (call once per turn). */
  allowed(): boolean {
    const now = this.now();
    this.total = this.total * this.decay + (now - this.last);
    this.spent *= this.decay;
    this.last = now;
    return this.spent <= this.share * this.total;
  }

  /** The work ran for `ms`. */
  spend(ms: number): void {
    this.spent += ms;
  }
}
