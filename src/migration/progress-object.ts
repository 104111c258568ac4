// A migration progress object with nothing measured yet. Free of SQLite
// imports: the broker-side facade (HistoryService) uses it too.

import type { MigrationPhase, MigrationProgress } from '../../protocols/migration.ts';

export function emptyProgress(phase: MigrationPhase, extra: Partial<MigrationProgress> = {}): MigrationProgress {
  return {
    phase,
    pass: null,
    percent: phase === 'verified' ? 100 : 0,
    etaSeconds: phase === 'verified' ? 0 : null,
    rowsDone: 0,
    rowsTotal: 0,
    ioBytesPerSecond: 0,
    ioLimitBytesPerSecond: null,
    ioBytes: 0,
    chunkMs: { last: 0, p50: 0, p99: 0, max: 0 },
    pausedBy: null,
    sourceReleased: false,
    snapshot: null,
    error: null,
    tail: { replayed: 0, remapped: 0, conflict: null },
    updatedAt: Date.now(),
    ...extra,
  };
}
