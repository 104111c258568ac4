// `agent-bridge recover`: what a recovery of a damaged history.db did, as the
// command prints it (--json) and as the service leaves it in
// `<home>/history.recover.json` when the recovery ran through it.

import type { HistoryErrorShape } from './errors.ts';

export interface LostGeneration {
  readonly source: string;
  readonly generation: number;
  /** Byte ranges [from, to) of the generation that no salvaged record holds (to: end of the last salvaged record, or of the cursor). */
  readonly missing: ReadonlyArray<readonly [number, number]>;
}

export interface RecoveryReport {
  /** The damaged file as it was found (history.db). */
  readonly damaged: string;
  /** Where the damaged file (and its -wal, -shm) now is, kept as it was. */
  readonly keptAs: string;
  /** The new store that took history.db's place. */
  readonly store: string;
  /** What was wrong with it (SQLite's words). */
  readonly reason: string;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly salvaged: {
    readonly records: number;
    readonly rawBytes: number;
    /** Of those, records found on pages no intact b-tree reached any more. */
    readonly fromOrphanPages: number;
    readonly conversations: number;
    readonly sources: number;
    /** Rows of the other tables (bindings, envelopes, cursors, migration state...). */
    readonly otherRows: number;
  };
  /** Metadata made again because its rows were lost: conversations named by records, source rows of retained files. */
  readonly rebuilt: { readonly conversations: number; readonly sources: number };
  readonly lost: {
    /** Pages that should have held part of a table or index and did not. */
    readonly unreadablePages: number;
    /** Rows (of any table) whose cell or overflow chain was damaged. */
    readonly damagedRows: number;
    /** Records the store's own index names that no page still holds; null when that index is unreadable too. */
    readonly records: number | null;
    /** Source ids with lost records (at most 200). */
    readonly sources: readonly string[];
    /** File-source generations with missing bytes (at most 200). */
    readonly generations: readonly LostGeneration[];
    /** Tables whose schema entry was unreadable: their rows were looked for on orphan pages only. */
    readonly tables: readonly string[];
  };
  /**
   * File sources whose capture continues where their salvaged records end (verified against the file), starts a new
   * generation that reads the whole file again (their newest generation has a hole, or ends inside a line with no
   * salvaged cursor confirming where that line's capture stood), or starts from the beginning (none of their records
   * was salvaged). `newGenerationSources` names the second kind.
   */
  readonly recapture: {
    readonly continued: number;
    readonly newGeneration: number;
    readonly newGenerationSources: readonly string[];
    readonly fromStart: number;
  };
}

/** What one `agent-bridge recover` did: salvaged, found nothing damaged (without --force), or failed. */
export interface RecoverOutcome {
  /** The request this answers (its time), so a waiting CLI knows the answer is its own. */
  readonly requestedAt: number;
  readonly finishedAt: number;
  readonly outcome: 'recovered' | 'not-damaged' | 'failed';
  readonly report: RecoveryReport | null;
  readonly error: HistoryErrorShape | null;
}
