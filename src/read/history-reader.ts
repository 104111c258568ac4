// HistoryReader: the read API (search_history, get_conversation) over one
// home, on read-only connections. Used by the reader worker (broker), the
// MCP server and the CLI; never by the writer.
//
// Store choice follows the read path (src/store/read-path.ts): the legacy
// bridge.db tables until history.db's migration is verified, history.db
// afterwards. A reader that is not yet on history.db looks again every few
// seconds, so a long-lived server switches once the migration completes.

import { HistoryError, toHistoryError } from '../../protocols/errors.ts';
import type { GetConversationOutput, SearchHistoryOutput } from '../../protocols/search.ts';
import { parseConversationRequest, parseSearchRequest } from '../../protocols/search.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { canonicalProjectSync } from '../project/canonical.ts';
import { conversationPage } from '../store/conversation-page.ts';
import { openReadStore, type ReadStore } from '../store/read-path.ts';
import { search, type SearchOptions } from '../store/search.ts';

const RECHECK_MS = 2000;

export class HistoryReader {
  private store: ReadStore | null = null;
  private checkedAt = 0;

  constructor(
    private readonly paths: HistoryPaths,
    private readonly options: { readonly recheckMs?: number; readonly search?: SearchOptions } = {},
  ) {}

  /** The current store, reopened while it is not yet the verified history.db. */
  private current(): ReadStore {
    const now = Date.now();
    if (this.store === null || (this.store.source !== 'history' && now - this.checkedAt >= (this.options.recheckMs ?? RECHECK_MS))) {
      const next = openReadStore(this.paths);
      this.store?.db?.close();
      this.store = next;
      this.checkedAt = now;
    }
    return this.store;
  }

  async search(input: unknown): Promise<SearchHistoryOutput> {
    const parsed = parseSearchRequest(input);
    if (!parsed.ok) throw new HistoryError('BAD_INPUT', `invalid search_history input: ${parsed.error}`);
    const request = parsed.value;
    // Canonicalise outside any statement (it reads the file system, synchronously: a reader never runs on the broker thread).
    const project = request.filters.project;
    const projectPaths = project === undefined ? [] : [canonicalProjectSync(project)];
    const store = this.current();
    if (store.db === null) return { engine: 'fts5', hits: [], truncated: false, store: 'none' };
    try {
      return { ...search(store.db, request, { ...this.options.search, projectPaths }), store: store.source };
    } catch (error) {
      throw toHistoryError(error, 'search history');
    }
  }

  async getConversation(input: unknown): Promise<GetConversationOutput> {
    const parsed = parseConversationRequest(input);
    if (!parsed.ok) throw new HistoryError('BAD_INPUT', `invalid get_conversation input: ${parsed.error}`);
    const store = this.current();
    if (store.db === null) return { conversation: null, records: [], next: null };
    try {
      return conversationPage(store.db, parsed.value);
    } catch (error) {
      throw toHistoryError(error, 'read conversation');
    }
  }

  /** Run `read` on the current store (null before anything is captured), errors as HistoryErrors of `step`. */
  withStore<T>(step: string, read: (db: ReadStore['db'], store: ReadStore) => T): T {
    const store = this.current();
    try {
      return read(store.db, store);
    } catch (error) {
      throw toHistoryError(error, step);
    }
  }

  close(): void {
    this.store?.db?.close();
    this.store = null;
  }
}
