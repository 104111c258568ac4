// The dashboard's read API beyond search_history and get_conversation: the
// conversation list, one search document with its record, sources with their
// generations, a generation's exact bytes, changes for live updates and the
// activity chart. The zod schemas validate HTTP query input (strict, like the
// MCP tools); the TS types are what both sides of the reader thread share.

import { z } from 'zod';
import { AGENTS } from './records.ts';
import type { ConversationInfo, GetConversationOutput, ReaderWorkerApi } from './search.ts';
import { CONVERSATION_ID_MAX, CONVERSATION_LIMIT, PROJECT_MAX, describeIssues, instantMs, parseIsoInstant, type Parsed } from './search.ts';

export const CONVERSATION_LIST_LIMIT = { min: 1, max: 200, default: 50 } as const;
export const SOURCE_LIST_LIMIT = { min: 1, max: 500, default: 200 } as const;
/** A document id (history_documents.id) or source id: long paths allowed. */
export const DOCUMENT_ID_MAX = 4096;
/** Raw bytes one reader call returns of a generation (the download streams several). */
export const RAW_PAGE_BYTES = 1024 * 1024;
/** Conversations named in one change notice (more are summarised as `more`). */
export const CHANGES_CONVERSATIONS_MAX = 64;
/** Days of the activity chart. */
export const ACTIVITY_DAYS = 90;

const INSTANT_HINT = 'must be epoch milliseconds (an integer >= 0) or an ISO-8601 date-time with offset, e.g. 2026-03-14T09:30:00Z';
const instant = z.union([z.number().int().min(0).max(8.64e15), z.string().refine((s) => parseIsoInstant(s) !== null)], { error: INSTANT_HINT });

const integer = () => z.number({ error: 'must be a number' }).int({ error: 'must be an integer' });

/** The list cursor: `<last time>:<conversation id>` of the previous page's last row, as the page's `next` gives it. */
const listCursor = z
  .string({ error: 'must be a string' })
  .max(CONVERSATION_ID_MAX + 24, { error: 'is too long' })
  .regex(/^-?\d{1,16}:.+$/s, { error: 'must be the `next` of a previous page' });

export const conversationListInputSchema = z
  .strictObject({
    agent: z.enum(AGENTS, { error: `must be one of ${AGENTS.join(', ')}` }).optional(),
    project: z.string().trim().min(1, { error: 'must not be empty' }).max(PROJECT_MAX, { error: `must be at most ${PROJECT_MAX} characters` }).optional(),
    since: instant.optional(),
    until: instant.optional(),
    after: listCursor.optional(),
    limit: integer()
      .min(CONVERSATION_LIST_LIMIT.min, { error: `must be at least ${CONVERSATION_LIST_LIMIT.min}` })
      .max(CONVERSATION_LIST_LIMIT.max, { error: `must be at most ${CONVERSATION_LIST_LIMIT.max}` })
      .default(CONVERSATION_LIST_LIMIT.default),
  })
  .superRefine((input, ctx) => {
    if (input.since === undefined || input.until === undefined) return;
    if (instantMs(input.since) > instantMs(input.until)) ctx.addIssue({ code: 'custom', path: ['since'], message: 'must not be later than until' });
  });

export interface ConversationListRequest {
  readonly agent?: string;
  readonly project?: string;
  readonly since?: number;
  readonly until?: number;
  readonly after?: { readonly lastAt: number; readonly id: string };
  readonly limit: number;
}

export function parseConversationListRequest(input: unknown): Parsed<ConversationListRequest> {
  const parsed = conversationListInputSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: describeIssues(parsed.error) };
  const { agent, project, since, until, after, limit } = parsed.data;
  const out: { -readonly [K in keyof ConversationListRequest]: ConversationListRequest[K] } = { limit };
  if (agent !== undefined) out.agent = agent;
  if (project !== undefined) out.project = project;
  if (since !== undefined) out.since = instantMs(since);
  if (until !== undefined) out.until = instantMs(until);
  if (after !== undefined) {
    const colon = after.indexOf(':');
    out.after = { lastAt: Number(after.slice(0, colon)), id: after.slice(colon + 1) };
  }
  return { ok: true, value: out };
}

export interface ConversationSummary extends ConversationInfo {
  /** Time of the earliest and the latest retained record (epoch ms). */
  readonly firstAt: number;
  readonly lastAt: number;
  readonly records: number;
  /** Retained raw bytes. */
  readonly bytes: number;
  /** The highest record id (live views compare it). */
  readonly lastRecord: number;
  /** Native children (subagents, child sessions, spawned threads). */
  readonly children: number;
}

export interface ConversationListOutput {
  readonly conversations: ConversationSummary[];
  /** Pass as `after` for the next (older) page; null on the last page. */
  readonly next: string | null;
}

/** The dashboard's conversation page: get_conversation's output plus the native family (parent, children). */
export interface ConversationFamily {
  readonly parent: ConversationInfo | null;
  readonly children: ConversationSummary[];
  /** Earliest, latest and total records of this conversation (null when it has none). */
  readonly summary: ConversationSummary | null;
}

/** Records before `before` (dashboard only: get_conversation pages forward; this opens a conversation at a record and reads back). */
export const conversationBeforeInputSchema = z.strictObject({
  id: z.string().min(1).max(CONVERSATION_ID_MAX),
  before: integer().min(1, { error: 'must be >= 1' }),
  limit: integer()
    .min(CONVERSATION_LIMIT.min, { error: `must be at least ${CONVERSATION_LIMIT.min}` })
    .max(CONVERSATION_LIMIT.max, { error: `must be at most ${CONVERSATION_LIMIT.max}` })
    .default(CONVERSATION_LIMIT.default),
});

export interface ConversationBeforeRequest {
  readonly id: string;
  readonly before: number;
  readonly limit: number;
}

export interface ConversationBeforeOutput extends GetConversationOutput {
  /** The first record id of this page when earlier records remain (pass it as `before`), else null. */
  readonly previous: number | null;
}

/** One search document (what a hit's sourceLink names) with the retained record it was derived from. */
export interface HistoryDocument {
  readonly id: string;
  readonly kind: string;
  readonly agent: string;
  readonly at: number;
  /** The derived text that search indexes. */
  readonly text: string;
  readonly conversation: string | null;
  /** Source offset where the document's line starts (null when unknown). */
  readonly line: number | null;
  readonly record: {
    readonly id: number;
    readonly source: string;
    readonly generation: number;
    readonly offset: number;
    readonly at: number;
    /** Exact retained bytes, base64. */
    readonly raw: string;
    readonly text: string;
    readonly part: string | null;
  } | null;
}

export const sourceListInputSchema = z.strictObject({
  after: z.string().min(1).max(DOCUMENT_ID_MAX).optional(),
  limit: integer()
    .min(SOURCE_LIST_LIMIT.min, { error: `must be at least ${SOURCE_LIST_LIMIT.min}` })
    .max(SOURCE_LIST_LIMIT.max, { error: `must be at most ${SOURCE_LIST_LIMIT.max}` })
    .default(SOURCE_LIST_LIMIT.default),
});

export type SourceListRequest = z.output<typeof sourceListInputSchema>;

export interface SourceGeneration {
  readonly generation: number;
  readonly records: number;
  readonly bytes: number;
  /** Times of the earliest and latest record of the generation (record times: the source's own line times). */
  readonly firstAt: number;
  readonly lastAt: number;
}

export interface SourceSummary {
  readonly id: string;
  readonly path: string;
  readonly format: string;
  readonly conversation: string;
  /** The cursor: generation being captured and bytes captured of it. */
  readonly generation: number;
  readonly offset: number;
  readonly generations: SourceGeneration[];
}

export interface SourceListOutput {
  readonly sources: SourceSummary[];
  readonly next: string | null;
}

export const rawGenerationInputSchema = z.strictObject({
  source: z.string().min(1).max(DOCUMENT_ID_MAX),
  generation: integer().min(0, { error: 'must be >= 0' }).optional(),
});

export interface RawPage {
  /** The generation read (the newest when none was asked for). */
  readonly generation: number;
  readonly bytes: Uint8Array;
  /** Offset to continue from, or null when the generation is complete. */
  readonly next: number | null;
}

export interface RawSourceInfo {
  readonly path: string;
  readonly generations: number[];
}

export interface Changes {
  /** The highest record id in the store now. */
  readonly maxRecord: number;
  /** Conversations with records above `since` and their highest record id (at most CHANGES_CONVERSATIONS_MAX). */
  readonly conversations: Array<{ readonly id: string; readonly lastRecord: number }>;
  /** More conversations changed than are named. */
  readonly more: boolean;
}

export interface ActivityOutput {
  /** First day shown (UTC midnight, epoch ms) and the number of days. */
  readonly from: number;
  readonly days: number;
  /** Captured lines (search documents) per agent per UTC day: series[agent][dayIndex]. */
  readonly series: Record<string, number[]>;
}

/** What the reader threads expose to the dashboard (inputs validated by the reader). */
export interface DashboardReaderApi extends ReaderWorkerApi {
  conversations(input: unknown): Promise<ConversationListOutput>;
  family(id: string): Promise<ConversationFamily>;
  conversationBefore(input: unknown): Promise<ConversationBeforeOutput>;
  document(id: string): Promise<HistoryDocument | null>;
  sources(input: unknown): Promise<SourceListOutput>;
  rawSource(source: string): Promise<RawSourceInfo | null>;
  rawPage(source: string, generation: number, from: number): Promise<RawPage>;
  changes(since: number): Promise<Changes>;
  activity(now: number): Promise<ActivityOutput>;
  /** The status object `/api/status` returns: the health object (protocols/health.ts) with the store's counts (src/dashboard/status.ts). */
  status(): Promise<unknown>;
}
