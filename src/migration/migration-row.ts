// The `history_migration` row (version 1) in history.db: the status readers
// switch on ('verified' means history.db holds the verified copy; see
// src/store/read-path.ts), the snapshot path, and a JSON manifest: the
// snapshot manifest while copying, the final manifest once verified, and the
// error plus the status to resume while a failure is latched.

import type { HistoryErrorShape } from '../../protocols/errors.ts';
import type { MigrationPass } from '../../protocols/migration.ts';
import type { Db } from '../store/open.ts';

export const MIGRATION_VERSION = 1;

export type MigrationStatus = 'snapshotting' | 'copying' | 'verified' | 'failed';

export interface TableManifest {
  readonly rows: number;
  /** bh-row-v1 over the whole table, in rowid order (comparable with the fixture manifest). */
  readonly sha256: string;
  readonly generation: number;
  readonly chunks: number;
}

export interface Manifest {
  readonly rowHash: 'bh-row-v1';
  readonly tables: Readonly<Record<string, TableManifest>>;
  /** Legacy tables bridge.db did not have. */
  readonly absent: readonly string[];
  /** Earlier snapshot generations kept inside the snapshot file (changed mutable tables). */
  readonly retained: ReadonlyArray<{ readonly name: string; readonly generation: number; readonly retainedAs: string; readonly rows: number }>;
  /** Highest conversation_records id in the snapshot (decimal); the legacy tail starts after it. */
  readonly recordsHighWater: string | null;
  readonly at: number;
}

export interface FailureManifest {
  readonly error: HistoryErrorShape;
  /** Where an explicit retry resumes. */
  readonly resumeStatus: Exclude<MigrationStatus, 'failed' | 'verified'>;
  readonly pass: MigrationPass | null;
  /** The manifest the row held before the failure. */
  readonly previous: Manifest | null;
  /** Nonce of the retry request file present when the failure latched: that request is not for this failure. */
  readonly staleRetry: string | null;
  readonly at: number;
}

export interface MigrationRow {
  readonly status: MigrationStatus;
  readonly snapshot: string | null;
  readonly manifest: Manifest | FailureManifest | null;
}

export function readMigrationRow(db: Db): MigrationRow | null {
  const row = db.prepare('SELECT status, snapshot, manifest FROM history_migration WHERE version = ?').get(MIGRATION_VERSION) as
    | { status: string; snapshot: string | null; manifest: string | null }
    | undefined;
  if (row === undefined) return null;
  let manifest: MigrationRow['manifest'] = null;
  if (row.manifest !== null) {
    try {
      manifest = JSON.parse(row.manifest) as MigrationRow['manifest'];
    } catch {
      manifest = null;
    }
  }
  return { status: row.status as MigrationStatus, snapshot: row.snapshot, manifest };
}

export function failureOf(row: MigrationRow | null): FailureManifest | null {
  return row?.status === 'failed' && row.manifest !== null && 'error' in row.manifest ? row.manifest : null;
}

export function manifestOf(row: MigrationRow | null): Manifest | null {
  return row !== null && row.manifest !== null && 'tables' in row.manifest ? row.manifest : null;
}

/** Write the row (one statement; callers wrap it in their transaction when it must go with other writes). */
export function writeMigrationRow(db: Db, row: MigrationRow): void {
  db.prepare(
    'INSERT INTO history_migration (version, snapshot, status, manifest) VALUES (?, ?, ?, ?) ON CONFLICT(version) DO UPDATE SET snapshot = excluded.snapshot, status = excluded.status, manifest = excluded.manifest',
  ).run(MIGRATION_VERSION, row.snapshot, row.status, row.manifest === null ? null : JSON.stringify(row.manifest));
}
