// Legacy tail replay. An old 0.29.x worker that is still running (pinned)
// may append conversation_records to bridge.db after the snapshot. Once the
// migration is verified, those records are copied in bounded batches (the
// chunk bounds), in legacy id order, one transaction per batch:
// - the record's conversation row is copied first when history.db lacks it;
// - a record already present under the same (source, generation, offset) is
//   reused when its conversation and raw bytes are equal, and is a conflict
//   otherwise: the batch stops there (both rows stay as they are) and the
//   conflict is reported; it is tried again on the next replay;
// - otherwise it is inserted without its id (new ingestion may already use
//   that id), read back and compared, and `history_legacy_tail` records
//   legacy id -> history.db id.
// The replay cursor is the larger of the snapshot's high-water mark and the
// highest legacy id in history_legacy_tail, so a second replay of the same
// records does nothing.

import { HistoryError } from '../../protocols/errors.ts';
import type { HistoryErrorShape } from '../../protocols/errors.ts';
import { serializeError } from '../../protocols/errors.ts';
import { type Db, hasTable } from '../store/open.ts';
import { columnShapes } from './legacy-tables.ts';
import type { ChunkBounds, RawRow } from './rows.ts';
import { RowReader, RowWriter } from './rows.ts';

export interface TailBatchResult {
  readonly replayed: number;
  readonly remapped: number;
  readonly bytes: number;
  readonly more: boolean;
  readonly conflict: HistoryErrorShape | null;
}

const NOTHING: TailBatchResult = { replayed: 0, remapped: 0, bytes: 0, more: false, conflict: null };

/** Cell value by column name (text and blobs as bytes). */
function cell(row: RawRow, columns: readonly string[], name: string): unknown {
  const i = columns.indexOf(name);
  if (i < 0) throw new HistoryError('VERIFY_FAILED', `legacy conversation_records has no column ${name}`);
  return row[2 + 2 * i];
}

function sameBytes(a: unknown, b: unknown): boolean {
  return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
}

export function tailCursor(history: Db, highWater: bigint | null): bigint | null {
  const mapped = history.prepare('SELECT max(source_id) FROM history_legacy_tail').pluck().safeIntegers(true).get() as bigint | null;
  if (mapped === null) return highWater;
  return highWater === null || mapped > highWater ? mapped : highWater;
}

/** Replay one bounded batch of legacy records appended after the snapshot. */
export function replayTailBatch(history: Db, bridge: Db, highWater: bigint | null, bounds: ChunkBounds): TailBatchResult {
  if (!hasTable(bridge, 'conversation_records')) return NOTHING;
  const recordColumns = columnShapes(bridge, 'conversation_records').map((c) => c.name);
  const records = new RowReader(bridge, { name: 'conversation_records', columns: recordColumns });
  const cursor = tailCursor(history, highWater);
  const batch = records.next(cursor, 2n ** 63n - 1n, bounds);
  if (batch.rows.length === 0) return NOTHING;

  const conversationColumns = hasTable(bridge, 'conversations') ? columnShapes(bridge, 'conversations').map((c) => c.name) : [];
  const legacyConversation = bridge.prepare('SELECT rowid FROM conversations WHERE id = CAST(? AS TEXT)').pluck().safeIntegers(true);
  const conversations = new RowReader(bridge, { name: 'conversations', columns: conversationColumns });
  const hasConversation = history.prepare('SELECT 1 FROM conversations WHERE id = CAST(? AS TEXT)');
  const addConversation = new RowWriter(history, { name: 'conversations', columns: conversationColumns }, { rowid: false });
  const addRecord = new RowWriter(history, { name: 'conversation_records', columns: recordColumns }, { rowid: false, skip: ['id'] });
  const existing = history
    .prepare('SELECT id, CAST(conversation AS BLOB) AS conversation, raw FROM conversation_records WHERE source = CAST(? AS TEXT) AND generation = ? AND offset = ?')
    .safeIntegers(true);
  const mapTail = history.prepare('INSERT INTO history_legacy_tail (source_id, target_id) VALUES (?, ?)');

  // bridge.db is read before history.db's write transaction: the conversations of this batch history.db lacks (null: bridge.db lacks it too).
  const missing = new Map<string, RawRow[] | null>();
  for (const row of batch.rows) {
    const conversation = cell(row, recordColumns, 'conversation');
    if (missing.has(String(conversation)) || hasConversation.get(conversation) !== undefined) continue;
    const rowid = legacyConversation.get(conversation) as bigint | undefined;
    missing.set(String(conversation), rowid === undefined ? null : conversations.range({ after: rowid - 1n, end: rowid }));
  }

  let replayed = 0;
  let remapped = 0;
  let bytes = 0;
  let conflict: HistoryErrorShape | null = null;
  history
    .transaction(() => {
      for (const row of batch.rows) {
        const legacyId = row[0] as bigint;
        const [source, generation, offset, conversation, raw] = ['source', 'generation', 'offset', 'conversation', 'raw'].map((c) => cell(row, recordColumns, c));
        try {
          // A savepoint per record: a conflict undoes only this record's writes.
          const target = history.transaction((): bigint => {
            if (hasConversation.get(conversation) === undefined) {
              const rows = missing.get(String(conversation));
              if (rows == null) throw new HistoryError('VERIFY_FAILED', `legacy record ${legacyId} belongs to conversation ${String(conversation)}, which bridge.db does not have`);
              addConversation.write(rows);
            }
            const before = existing.get(source, generation, offset) as { id: bigint; conversation: Buffer; raw: Buffer } | undefined;
            let target: bigint;
            if (before !== undefined) {
              if (!sameBytes(before.conversation, conversation) || !sameBytes(before.raw, raw)) {
                throw new HistoryError('VERIFY_FAILED', `legacy record ${legacyId} (${String(source)} generation ${generation} offset ${offset}) differs from the record history.db holds there`);
              }
              target = before.id;
            } else {
              const inserted = addRecord.writeOne(row);
              const back = existing.get(source, generation, offset) as { id: bigint; raw: Buffer } | undefined;
              if (inserted === null || back === undefined || back.id !== inserted || !sameBytes(back.raw, raw)) {
                throw new HistoryError('VERIFY_FAILED', `legacy record ${legacyId} did not read back byte-exactly after the tail copy`);
              }
              target = inserted;
            }
            mapTail.run(legacyId, target);
            return target;
          })();
          replayed++;
          if (target !== legacyId) remapped++;
          bytes += (raw as Buffer).length;
        } catch (error) {
          conflict = serializeError(error);
          break; // rows before this one commit; this one and later ones wait for the next replay
        }
      }
    })
    .immediate();
  const more = conflict === null && records.hasRowAfter(tailCursor(history, highWater));
  return { replayed, remapped, bytes, more, conflict };
}
