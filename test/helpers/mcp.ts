// An MCP client connected to `agent-bridge mcp` over stdio, as agent CLIs run it.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliPath } from './home.ts';

export async function connectMcp(env: NodeJS.ProcessEnv, args: readonly string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'mcp', ...args],
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'agent-bridge-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}
