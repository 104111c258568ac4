// get_conversation on one read-only connection: the retained records of a
// conversation in increasing id order, a page at a time.
//
// A page holds at most `limit` records and stops before its raw bytes would
// exceed PAGE_RAW_BUDGET; a single larger record still comes, alone, so every
// record can be paged. `next` is the last id when more records remain. The
// sizes are read first (length() of a blob does not load it), so a page never
// loads bytes it will not return.

import { PAGE_RAW_BUDGET } from '../../protocols/search.ts';
import type { ConversationBeforeOutput, ConversationBeforeRequest } from '../../protocols/dashboard.ts';
import type { ConversationInfo, ConversationRecord, ConversationRequest, GetConversationOutput } from '../../protocols/search.ts';
import type { Db } from './open.ts';
import { hasTable } from './open.ts';
import { isForeignHome } from './foreign-home.ts';
import { prepared } from './statements.ts';

const EMPTY: GetConversationOutput = { conversation: null, records: [], next: null };

interface SizeRow {
  readonly id: number;
  readonly size: number;
}

interface RecordRow {
  readonly id: number;
  readonly source: string;
  readonly generation: number;
  readonly offset: number;
  readonly at: number;
  readonly raw: Uint8Array;
  readonly part: string | null;
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Which records of a page fit: at most `limit`, within the byte budget, at least one. */
export function pageSpan(sizes: readonly SizeRow[], limit: number, budget = PAGE_RAW_BUDGET): { count: number; more: boolean } {
  let bytes = 0;
  let count = 0;
  for (const row of sizes) {
    if (count === limit) break;
    if (count > 0 && bytes + row.size > budget) break;
    bytes += row.size;
    count++;
  }
  return { count, more: sizes.length > count };
}

function toRecord(row: RecordRow): ConversationRecord {
  const raw = Buffer.from(row.raw.buffer, row.raw.byteOffset, row.raw.byteLength);
  const record: ConversationRecord = {
    id: row.id,
    source: row.source,
    generation: row.generation,
    offset: row.offset,
    // Legacy file records can hold a fractional mtime in this INTEGER column.
    at: Math.trunc(row.at),
    text: decoder.decode(raw),
    raw: raw.toString('base64'),
    part: row.part,
  };
  return isForeignHome(row.source, raw) ? { ...record, foreignHome: true } : record;
}

/** The conversations row of `id`, or null. */
export function conversationInfo(db: Db, id: string): ConversationInfo | null {
  if (!hasTable(db, 'conversations')) return null;
  return (prepared(db, 'SELECT id, agent, session, parent, project, job, kind FROM conversations WHERE id = ?').get(id) as ConversationInfo | undefined) ?? null;
}

export function conversationPage(db: Db, request: ConversationRequest): GetConversationOutput {
  if (!hasTable(db, 'conversation_records')) return EMPTY;
  const conversation = conversationInfo(db, request.id);
  const sizes = prepared(db, 'SELECT id, length(raw) AS size FROM conversation_records WHERE conversation = ? AND id > ? ORDER BY id LIMIT ?').all(
    request.id,
    request.after,
    request.limit + 1,
  ) as SizeRow[];
  if (sizes.length === 0) return { conversation, records: [], next: null };
  const { count, more } = pageSpan(sizes, request.limit);
  const last = (sizes[count - 1] as SizeRow).id;
  const rows = prepared(
    db,
    'SELECT id, source, generation, offset, at, raw, part FROM conversation_records WHERE conversation = ? AND id > ? AND id <= ? ORDER BY id',
  ).all(request.id, request.after, last) as RecordRow[];
  return { conversation, records: rows.map(toRecord), next: more ? last : null };
}

/**
 * The page of records just before `before`, in increasing id order (the
 * dashboard opens a conversation at a record and reads back from there).
 * Same limits as a forward page; `previous` is this page's first id while
 * earlier records remain.
 */
export function conversationPageBefore(db: Db, request: ConversationBeforeRequest): ConversationBeforeOutput {
  if (!hasTable(db, 'conversation_records')) return { ...EMPTY, previous: null };
  const sizes = prepared(db, 'SELECT id, length(raw) AS size FROM conversation_records WHERE conversation = ? AND id < ? ORDER BY id DESC LIMIT ?').all(
    request.id,
    request.before,
    request.limit + 1,
  ) as SizeRow[];
  const conversation = conversationInfo(db, request.id);
  if (sizes.length === 0) return { conversation, records: [], next: null, previous: null };
  const { count, more } = pageSpan(sizes, request.limit);
  const first = (sizes[count - 1] as SizeRow).id;
  const rows = prepared(
    db,
    'SELECT id, source, generation, offset, at, raw, part FROM conversation_records WHERE conversation = ? AND id >= ? AND id < ? ORDER BY id',
  ).all(request.id, first, request.before) as RecordRow[];
  return { conversation, records: rows.map(toRecord), next: rows.at(-1)?.id ?? null, previous: more ? first : null };
}
