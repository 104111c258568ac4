// Bindings and aliases a process has committed already. Peers are read again
// when a process starts and a job's every snapshot names its session again;
// sending those rows again is harmless but wasted (each tags conversations),
// so a batch carries only rows not committed yet. Bounded: when full, the
// memory is cleared and repeats are sent once more.

import type { AliasRow, BindingRow } from '../../protocols/rows.ts';
import type { BridgeBatch } from './batch.ts';

const APPLIED_MAX = 65_536;

const bindingKey = (b: BindingRow): string => `b\u0000${b.session}\u0000${b.agent}\u0000${b.cwd}\u0000${b.job ?? ''}\u0000${b.project}`;
const aliasKey = (a: AliasRow): string => `a\u0000${a.alias}\u0000${a.session}\u0000${a.job ?? ''}`;

export class AppliedBindings {
  private readonly applied = new Set<string>();

  private fresh<T>(rows: T[], key: (row: T) => string): string[] {
    const keys = new Set<string>();
    const kept = rows.filter((row) => {
      const k = key(row);
      if (this.applied.has(k) || keys.has(k)) return false;
      keys.add(k);
      return true;
    });
    rows.splice(0, rows.length, ...kept);
    return [...keys];
  }

  /** Leave out of `batch` the rows committed already; remember the rest once the batch is committed. */
  filter(batch: BridgeBatch): void {
    const keys = [...this.fresh(batch.bindings, bindingKey), ...this.fresh(batch.aliases, aliasKey)];
    batch.effects.push(() => {
      if (this.applied.size + keys.length > APPLIED_MAX) this.applied.clear();
      for (const k of keys) this.applied.add(k);
    });
  }
}
