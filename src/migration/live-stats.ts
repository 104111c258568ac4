// What a running migration measures about itself for status: rows finished
// in the current pass (on top of the checkpointed counts the pass started
// from), the latency window of units (the synchronous stretches between two
// yields, commits included), and the rate behind the ETA.

import { MIGRATION_PASSES, type MigrationPass } from '../../protocols/migration.ts';
import { LatencyWindow } from '../ingest/latency.ts';
import type { ChunkEvent, UnitEvent } from './context.ts';
import type { PassTotals } from './status.ts';

export class LiveStats {
  private readonly latency = new LatencyWindow(1000);
  private readonly started = performance.now();
  private slowest = 0;
  private rowsThisRun = 0;
  /** Rows finished in the current pass since it started or resumed. */
  passRows = 0;

  unit(event: UnitEvent): void {
    this.latency.add(event.ms);
    this.slowest = Math.max(this.slowest, event.ms);
  }

  chunk(event: ChunkEvent, currentPass: MigrationPass | null): void {
    if (event.kind !== currentPass) return;
    this.passRows += event.rows;
    this.rowsThisRun += event.rows;
  }

  /** Seconds left at this run's rows-per-second, over what remains of this pass and the passes after it. */
  etaSeconds(totals: PassTotals, pass: MigrationPass): number | null {
    if (this.rowsThisRun === 0) return null;
    const perSecond = this.rowsThisRun / ((performance.now() - this.started) / 1000);
    const passesLeft = MIGRATION_PASSES.length - 1 - MIGRATION_PASSES.indexOf(pass);
    return Math.round((totals.rowsTotal - totals.rowsDone + passesLeft * totals.rowsTotal) / perSecond);
  }

  chunkMs(): { last: number; p50: number; p99: number; max: number } {
    return { last: this.latency.last, p50: this.latency.percentile(50), p99: this.latency.percentile(99), max: this.slowest };
  }
}
