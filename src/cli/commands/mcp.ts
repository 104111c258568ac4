// `agent-bridge mcp [--tool-prefix P]`: a stdio MCP server with the tools
// search_history and get_conversation, for agent CLIs to launch. It opens the
// store read-only and never writes. stdout carries the protocol only;
// diagnostics go to stderr. It exits when its client closes stdin.

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { resolvePaths } from '../../config/paths.ts';
import { createMcpServer, TOOL_PREFIX } from '../../mcp/server.ts';
import { HistoryReader } from '../../read/history-reader.ts';
import { UsageError, parse } from '../args.ts';

export async function mcp(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { 'tool-prefix': { type: 'string' } }, { min: 0, max: 0, names: '' });
  const prefix = flags['tool-prefix'] ?? '';
  if (!TOOL_PREFIX.test(prefix)) throw new UsageError(`--tool-prefix must be up to 32 letters, digits, "_" or "-", got "${prefix}"`);
  const reader = new HistoryReader(resolvePaths());
  const server = createMcpServer(reader, { toolPrefix: prefix });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
  reader.close();
  return 0;
}
