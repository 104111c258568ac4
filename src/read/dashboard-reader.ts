// The dashboard's reads beyond search_history and get_conversation, on the
// same read-only store a HistoryReader chooses (legacy bridge.db until the
// migration is verified, history.db afterwards). Input is validated here
// with the zod schemas of protocols/dashboard.ts, as the MCP tools' is.

import type {
  ActivityOutput,
  Changes,
  ConversationBeforeOutput,
  ConversationFamily,
  ConversationListOutput,
  HistoryDocument,
  RawPage,
  RawSourceInfo,
  SourceListOutput,
} from '../../protocols/dashboard.ts';
import { conversationBeforeInputSchema, parseConversationListRequest, RAW_PAGE_BYTES, sourceListInputSchema } from '../../protocols/dashboard.ts';
import { HistoryError } from '../../protocols/errors.ts';
import { describeIssues } from '../../protocols/search.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { canonicalProjectSync } from '../project/canonical.ts';
import { activity, changesSince } from '../store/changes.ts';
import { conversationFamily, listConversations } from '../store/conversation-list.ts';
import { conversationPageBefore } from '../store/conversation-page.ts';
import { historyDocument } from '../store/history-document.ts';
import { knownProjects, matchProjects } from '../store/search/projects.ts';
import { layoutOf } from '../store/search/layout.ts';
import { listSources, rawGenerationPage, rawSourceInfo } from '../store/source-list.ts';
import { HistoryReader } from './history-reader.ts';

const ACTIVITY_TTL_MS = 60_000;

export class DashboardReader extends HistoryReader {
  private activityCache: { at: number; value: ActivityOutput } | null = null;

  constructor(paths: HistoryPaths, options: ConstructorParameters<typeof HistoryReader>[1] = {}) {
    super(paths, options);
  }

  async conversations(input: unknown): Promise<ConversationListOutput> {
    const parsed = parseConversationListRequest(input);
    if (!parsed.ok) throw new HistoryError('BAD_INPUT', `invalid conversations input: ${parsed.error}`);
    const request = parsed.value;
    const canonical = request.project === undefined ? null : canonicalProjectSync(request.project);
    return this.withStore('list conversations', (db) => {
      if (db === null) return { conversations: [], next: null };
      const projects = request.project === undefined ? null : matchProjects(knownProjects(db, layoutOf(db)), [...new Set([request.project, canonical as string])]);
      return listConversations(db, request, projects);
    });
  }

  async family(id: string): Promise<ConversationFamily> {
    return this.withStore('read conversation family', (db) => (db === null ? { parent: null, children: [], summary: null } : conversationFamily(db, id)));
  }

  async conversationBefore(input: unknown): Promise<ConversationBeforeOutput> {
    const parsed = conversationBeforeInputSchema.safeParse(input);
    if (!parsed.success) throw new HistoryError('BAD_INPUT', `invalid conversation input: ${describeIssues(parsed.error)}`);
    return this.withStore('read conversation', (db) =>
      db === null ? { conversation: null, records: [], next: null, previous: null } : conversationPageBefore(db, parsed.data),
    );
  }

  async document(id: string): Promise<HistoryDocument | null> {
    return this.withStore('read history document', (db) => (db === null ? null : historyDocument(db, id)));
  }

  async sources(input: unknown): Promise<SourceListOutput> {
    const parsed = sourceListInputSchema.safeParse(input);
    if (!parsed.success) throw new HistoryError('BAD_INPUT', `invalid sources input: ${describeIssues(parsed.error)}`);
    return this.withStore('list sources', (db) => (db === null ? { sources: [], next: null } : listSources(db, parsed.data)));
  }

  async rawSource(source: string): Promise<RawSourceInfo | null> {
    return this.withStore('read source', (db) => (db === null ? null : rawSourceInfo(db, source)));
  }

  async rawPage(source: string, generation: number, from: number): Promise<RawPage> {
    return this.withStore('read source bytes', (db) =>
      db === null ? { generation, bytes: new Uint8Array(0), next: null } : rawGenerationPage(db, source, generation, from, RAW_PAGE_BYTES),
    );
  }

  async changes(since: number): Promise<Changes> {
    return this.withStore('read changes', (db) => (db === null ? { maxRecord: 0, conversations: [], more: false } : changesSince(db, since)));
  }

  async activity(now: number): Promise<ActivityOutput> {
    const cached = this.activityCache;
    if (cached !== null && now - cached.at < ACTIVITY_TTL_MS) return cached.value;
    const value = this.withStore('read activity', (db) => (db === null ? { from: now, days: 0, series: {} } : activity(db, now)));
    this.activityCache = { at: now, value };
    return value;
  }
}
