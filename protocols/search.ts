// The public read API: `search_history` and `get_conversation`, as agents
// call them over MCP, the dashboard over HTTP and people through the CLI.
// The zod schemas are the one place input is validated (strict: an unknown
// field is an error, not ignored); the TS types are what every front end and
// both sides of the reader worker boundary share.

import { z } from 'zod';
import { AGENTS, KINDS } from './records.ts';
import type { Agent, Kind } from './records.ts';

export const QUERY_MAX = 1000;
export const FILTER_TEXT_MAX = 256;
export const PROJECT_MAX = 4096;
export const CONVERSATION_ID_MAX = 512;
export const SEARCH_LIMIT = { min: 1, max: 50, default: 10 } as const;
export const CONVERSATION_LIMIT = { min: 1, max: 100, default: 20 } as const;
/** A conversation page stops before its raw bytes would exceed this (one larger record still comes alone). */
export const PAGE_RAW_BUDGET = 512 * 1024;
/** The largest instant accepted (the ECMAScript Date range). */
const MAX_INSTANT = 8.64e15;

/** ISO-8601 date-time with an explicit offset (Z or ±hh:mm / ±hhmm / ±hh); seconds and fractions optional. */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** Epoch ms of an ISO-8601 date-time with offset, or null when it is not one. */
export function parseIsoInstant(text: string): number | null {
  if (!ISO_WITH_OFFSET.test(text)) return null;
  // Date.parse wants ±hh:mm; normalise ±hhmm and ±hh first.
  const normal = text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2').replace(/([+-]\d{2})$/, '$1:00');
  const ms = Date.parse(normal);
  return Number.isFinite(ms) ? ms : null;
}

const INSTANT_HINT = 'must be epoch milliseconds (an integer >= 0) or an ISO-8601 date-time with offset, e.g. 2026-03-14T09:30:00Z';

const instant = z.union(
  [
    z.number().int({ error: INSTANT_HINT }).min(0, { error: INSTANT_HINT }).max(MAX_INSTANT, { error: INSTANT_HINT }),
    z.string().refine((s) => parseIsoInstant(s) !== null, { error: INSTANT_HINT }),
  ],
  { error: INSTANT_HINT },
);

/** since/until as epoch ms (both forms accepted on input; a string here has passed `instant`). */
export function instantMs(value: number | string): number {
  return parseInstantOrNull(value) as number;
}

const integer = () => z.number({ error: 'must be a number' }).int({ error: 'must be an integer' });

/** A page size: an integer in [min, max], `default` when absent. */
const pageLimit = (range: { readonly min: number; readonly max: number; readonly default: number }) =>
  integer()
    .min(range.min, { error: `must be at least ${range.min}` })
    .max(range.max, { error: `must be at most ${range.max}` })
    .default(range.default);

const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

export const searchFiltersSchema = z
  .strictObject({
    project: text(PROJECT_MAX).describe('Project path; a worktree or subfolder path finds the whole project').optional(),
    session: text(FILTER_TEXT_MAX).describe('CLI session id or learned session alias').optional(),
    job: text(FILTER_TEXT_MAX).describe('agent-bridge job name; includes the job sessions and their native children').optional(),
    agent: z.enum(AGENTS, { error: `must be one of ${AGENTS.join(', ')}` }).optional(),
    kind: z.enum(KINDS, { error: `must be one of ${KINDS.join(', ')}` }).optional(),
    since: instant.describe('Inclusive lower bound: epoch ms or ISO-8601 with offset').optional(),
    until: instant.describe('Exclusive upper bound: epoch ms or ISO-8601 with offset').optional(),
  })
  .superRefine((filters, ctx) => {
    if (filters.since === undefined || filters.until === undefined) return;
    const since = parseInstantOrNull(filters.since);
    const until = parseInstantOrNull(filters.until);
    if (since !== null && until !== null && since > until) {
      ctx.addIssue({ code: 'custom', path: ['since'], message: `must not be later than until (${String(filters.since)} > ${String(filters.until)})` });
    }
  });

function parseInstantOrNull(value: number | string): number | null {
  return typeof value === 'number' ? value : parseIsoInstant(value);
}

export const searchHistoryInputSchema = z.strictObject({
  query: text(QUERY_MAX).describe('Words to find (all must match); "double quotes" for a phrase'),
  filters: searchFiltersSchema.optional(),
  limit: pageLimit(SEARCH_LIMIT),
});

export const getConversationInputSchema = z.strictObject({
  id: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(CONVERSATION_ID_MAX, { error: `must be at most ${CONVERSATION_ID_MAX} characters` })
    .describe('Full conversation id, e.g. claude:<session> or codex:<thread>'),
  after: integer()
    .min(0, { error: 'must be >= 0' })
    .describe('Return records with an id greater than this (the previous page\'s next)')
    .optional(),
  limit: pageLimit(CONVERSATION_LIMIT),
});

export type SearchHistoryInput = z.input<typeof searchHistoryInputSchema>;
export type GetConversationInput = z.input<typeof getConversationInputSchema>;

/** Validated search filters, instants as epoch ms, project as given (canonicalised later). */
export interface SearchFilters {
  readonly project?: string;
  readonly session?: string;
  readonly job?: string;
  readonly agent?: Agent;
  readonly kind?: Kind;
  readonly since?: number;
  readonly until?: number;
}

export interface SearchRequest {
  readonly query: string;
  readonly filters: SearchFilters;
  readonly limit: number;
}

export interface ConversationRequest {
  readonly id: string;
  readonly after: number;
  readonly limit: number;
}

export interface SearchHit {
  readonly id: string;
  readonly kind: string;
  readonly agent: string;
  readonly at: number;
  /** At most 320 characters, whitespace collapsed, around the match. */
  readonly snippet: string;
  readonly link: string;
  readonly sourceLink: string;
  readonly message: string | null;
  readonly job: string | null;
  readonly run: string | null;
  readonly session: string | null;
  readonly cursor: string | null;
  /** The full conversation id (get_conversation's id), when the document belongs to one. */
  readonly conversation: string | null;
  readonly project: string | null;
}

export type SearchEngine = 'fts5' | 'plain';

export interface SearchHistoryOutput {
  readonly engine: SearchEngine;
  readonly hits: SearchHit[];
  /**
   * The work was bounded before every match was examined (a very common word,
   * the time budget): the hits are the best of the newest matches, and more
   * matches exist. `notice` says what was cut.
   */
  readonly truncated: boolean;
  readonly notice?: string;
  /** Which store answered: history.db, the legacy bridge.db tables before the migration is verified, or a project replica (`--db`). */
  readonly store: 'history' | 'legacy' | 'replica' | 'none';
}

export interface ConversationInfo {
  readonly id: string;
  readonly agent: string;
  readonly session: string;
  readonly parent: string | null;
  readonly project: string;
  readonly job: string | null;
  readonly kind: string;
}

export interface ConversationRecord {
  readonly id: number;
  readonly source: string;
  readonly generation: number;
  readonly offset: number;
  readonly at: number;
  /** UTF-8 decode of raw (a split code point becomes U+FFFD; use raw for exact bytes). */
  readonly text: string;
  /** The exact retained bytes, base64. */
  readonly raw: string;
  readonly part: string | null;
  /** Set on records conclusively identified as test-fixture data of another home. */
  readonly foreignHome?: true;
}

export interface GetConversationOutput {
  readonly conversation: ConversationInfo | null;
  readonly records: ConversationRecord[];
  /** The last record id when more records remain (pass it as `after`), else null. */
  readonly next: number | null;
}

/** One line per problem: `filters.agent: must be one of ...`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      const message =
        issue.code === 'unrecognized_keys' ? `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => `"${k}"`).join(', ')}` : issue.message;
      return path === '' ? message : `${path}: ${message}`;
    })
    .join('; ');
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export function parseSearchRequest(input: unknown): Parsed<SearchRequest> {
  const parsed = searchHistoryInputSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: describeIssues(parsed.error) };
  const { query, filters = {}, limit } = parsed.data;
  const out: { -readonly [K in keyof SearchFilters]: SearchFilters[K] } = {};
  if (filters.project !== undefined) out.project = filters.project;
  if (filters.session !== undefined) out.session = filters.session;
  if (filters.job !== undefined) out.job = filters.job;
  if (filters.agent !== undefined) out.agent = filters.agent;
  if (filters.kind !== undefined) out.kind = filters.kind;
  if (filters.since !== undefined) out.since = instantMs(filters.since);
  if (filters.until !== undefined) out.until = instantMs(filters.until);
  return { ok: true, value: { query, filters: out, limit } };
}

export function parseConversationRequest(input: unknown): Parsed<ConversationRequest> {
  const parsed = getConversationInputSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: describeIssues(parsed.error) };
  return { ok: true, value: { id: parsed.data.id, after: parsed.data.after ?? 0, limit: parsed.data.limit } };
}

/** What the reader worker exposes to HistoryService (inputs are validated there). */
export interface ReaderWorkerApi {
  start(options: { readonly env: Readonly<Record<string, string | undefined>> }): Promise<void>;
  search(input: unknown): Promise<SearchHistoryOutput>;
  getConversation(input: unknown): Promise<GetConversationOutput>;
  stop(): Promise<void>;
}
