// A sliding window of durations with percentiles, for status and benches.

export class LatencyWindow {
  private readonly samples: number[] = [];
  private next = 0;
  last = 0;

  constructor(private readonly capacity: number) {}

  add(ms: number): void {
    this.last = ms;
    if (this.samples.length < this.capacity) this.samples.push(ms);
    else this.samples[this.next] = ms;
    this.next = (this.next + 1) % this.capacity;
  }

  percentile(p: number): number {
    if (this.samples.length === 0) return 0;
    const sorted = [...this.samples].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
  }
}
