// The MCP server: search_history and get_conversation as tools, over any
// transport (agent-bridge mcp uses stdio). It only reads: every call goes to
// a HistoryReader on read-only connections.
//
// Input schemas are the zod schemas of protocols/search.ts, so listed JSON
// schemas and validation agree; the SDK turns a validation failure into an
// isError result naming the field, and so do we for errors the reader
// raises. Results are JSON text content plus the same object as
// structuredContent.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HistoryError } from '../../protocols/errors.ts';
import { getConversationInputSchema, searchHistoryInputSchema } from '../../protocols/search.ts';
import type { HistoryReader } from '../read/history-reader.ts';

export const SERVER_NAME = 'agent-bridge-history';
export const SERVER_VERSION = '0.1.0';
/** Tool name prefixes: MCP tool names are [A-Za-z0-9_-], at most 64 characters in all. */
export const TOOL_PREFIX = /^[A-Za-z0-9_-]{0,32}$/;

const SEARCH_DESCRIPTION = `Search the local history of Claude Code, Codex and OpenCode transcripts and agent-bridge records (messages, runs, decisions, job reports, approvals, progress).
Every word must match (AND); "double quotes" match a phrase. Ranked by relevance (bm25), then newest.
Filters: project (a path; a worktree or subfolder path finds the whole project), session, job (includes the job's sessions and their native subagents), agent, kind, since/until (epoch ms or ISO-8601 with offset; since inclusive, until exclusive).
Each hit names its conversation: pass it to get_conversation to read the surrounding records. "truncated": true means very many documents matched and only the newest were ranked; narrow the query.`;

const CONVERSATION_DESCRIPTION = `Read a conversation's retained records (exact captured bytes) in order, one page at a time.
Pass a hit's "conversation" as id. Records come in increasing id order; a page holds at most limit records and about 512 KiB of raw bytes. While "next" is not null, call again with after = next.
Each record has source, generation, offset, at, text (UTF-8) and raw (base64, exact bytes: concatenate raw by source and generation in offset order to rebuild a file; text can show U+FFFD where a chunk split a character).`;

function textResult(value: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

function errorResult(error: unknown): CallToolResult {
  const message = error instanceof HistoryError ? `${error.message} [${error.code}]` : error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text: message }], isError: true };
}

export interface McpOptions {
  /** Prepended to both tool names (OpenCode exposes MCP tools as bridge_<name>). */
  readonly toolPrefix?: string;
}

export function createMcpServer(reader: HistoryReader, options: McpOptions = {}): McpServer {
  const prefix = options.toolPrefix ?? '';
  if (!TOOL_PREFIX.test(prefix)) throw new HistoryError('BAD_INPUT', `tool prefix must be up to 32 letters, digits, "_" or "-", got "${prefix}"`);
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: {} },
      instructions: `Local conversation history. Use ${prefix}search_history to find earlier work, then ${prefix}get_conversation to read it. Read-only.`,
    },
  );
  server.registerTool(
    `${prefix}search_history`,
    {
      title: 'Search conversation history',
      description: SEARCH_DESCRIPTION,
      inputSchema: searchHistoryInputSchema,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        return textResult(await reader.search(args));
      } catch (error) {
        return errorResult(error);
      }
    },
  );
  server.registerTool(
    `${prefix}get_conversation`,
    {
      title: 'Read a conversation',
      description: CONVERSATION_DESCRIPTION,
      inputSchema: getConversationInputSchema,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        return textResult(await reader.getConversation(args));
      } catch (error) {
        return errorResult(error);
      }
    },
  );
  return server;
}
