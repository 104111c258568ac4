// The migration manifest stored in history_migration: per table the row
// count, the bh-row-v1 digest of the whole table (the fixture manifest's row
// hash, so a test or a user can compare history.db with the legacy home),
// the snapshot generation and the number of chunks; which legacy tables were
// absent; which earlier generations the snapshot retains; and the
// conversation_records high-water mark where the legacy tail begins.

import { HistoryError } from '../../protocols/errors.ts';
import { LEGACY_TABLES } from '../store/schema.ts';
import type { Manifest, TableManifest } from './migration-row.ts';
import type { ProgressStore } from './progress-db.ts';
import { ROW_HASH } from './row-hash.ts';
import { Sha256State } from './sha256-state.ts';

export function emptyManifest(at = Date.now()): Manifest {
  return { rowHash: ROW_HASH, tables: {}, absent: [...LEGACY_TABLES], retained: [], recordsHighWater: null, at };
}

/** The manifest as one read-only pass left it (snapshot-verify: the snapshot; verify: history.db). */
export function buildManifest(progress: ProgressStore, pass: 'snapshot-verify' | 'verify', at = Date.now()): Manifest {
  const tables: Record<string, TableManifest> = {};
  let recordsHighWater: string | null = null;
  for (const t of progress.tables()) {
    const state = t.passes[pass];
    tables[t.name] = { rows: state.rows, sha256: new Sha256State(state.hash).hex(), generation: t.generation, chunks: progress.chunkCount(t.name, t.generation) };
    if (t.name === 'conversation_records' && t.passes.snapshot.end !== null) recordsHighWater = String(t.passes.snapshot.end);
  }
  return {
    rowHash: ROW_HASH,
    tables,
    absent: LEGACY_TABLES.filter((name) => tables[name] === undefined),
    retained: progress.retained().map(({ name, generation, retainedAs, rows }) => ({ name, generation, retainedAs, rows })),
    recordsHighWater,
    at,
  };
}

/** history.db must hold, table by table, exactly what the snapshot held. */
export function assertSameTables(snapshot: Manifest, copy: Manifest): void {
  for (const [name, expected] of Object.entries(snapshot.tables)) {
    const actual = copy.tables[name];
    if (actual === undefined || actual.rows !== expected.rows || actual.sha256 !== expected.sha256) {
      throw new HistoryError(
        'VERIFY_FAILED',
        `verify: history.db ${name} (${actual?.rows ?? 0} rows, ${actual?.sha256.slice(0, 12) ?? '-'}) differs from the snapshot (${expected.rows} rows, ${expected.sha256.slice(0, 12)})`,
        { step: 'verify' },
      );
    }
  }
}
