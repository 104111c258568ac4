// agent-bridge: the command-line front end. Each command lives in
// commands/<name>.ts; this file only dispatches and turns errors into exit
// codes: 0 done, 1 failed (the reason on stderr), 2 usage error.

import { HistoryError } from '../../protocols/errors.ts';
import { UsageError } from './args.ts';
import { conversation } from './commands/conversation.ts';
import { dashboard } from './commands/dashboard.ts';
import { ingest } from './commands/ingest.ts';
import { mcp } from './commands/mcp.ts';
import { raw } from './commands/raw.ts';
import { reindex } from './commands/reindex.ts';
import { search } from './commands/search.ts';
import { serve } from './commands/serve.ts';
import { sources } from './commands/sources.ts';
import { status } from './commands/status.ts';

type Command = (argv: readonly string[]) => Promise<number>;

const COMMANDS: Record<string, { run: Command; usage: string }> = {
  serve: { run: serve, usage: 'serve [--no-dashboard]             run the history service (and the dashboard) until stopped' },
  dashboard: { run: dashboard, usage: 'dashboard [--port N] [--host H] [--open] the authenticated local web UI (loopback only)' },
  ingest: { run: ingest, usage: 'ingest --once [--pace spec|max]    capture everything pending, then exit' },
  search: {
    run: search,
    usage: 'search <query> [--project P] [--session S] [--job J] [--agent A] [--kind K] [--since T] [--until T] [--limit N] [--json]',
  },
  conversation: { run: conversation, usage: 'conversation <id> [--after N] [--limit N] [--all] [--raw] [--json]' },
  mcp: { run: mcp, usage: 'mcp [--tool-prefix P]                stdio MCP server: search_history, get_conversation (read-only)' },
  sources: { run: sources, usage: 'sources [--json]                   list captured sources and their cursors' },
  raw: { run: raw, usage: 'raw <source-id> [--generation N]   write the exact captured bytes to stdout' },
  status: { run: status, usage: 'status [--json]                    what is captured, writer, live service status, migration' },
  reindex: { run: reindex, usage: 'reindex [--retry] [--no-wait] [--json] rebuild search data; --retry resumes a failed migration' },
};

function usage(): string {
  return `usage: agent-bridge <command> [options]\n\n${Object.values(COMMANDS)
    .map((c) => `  ${c.usage}`)
    .join('\n')}\n`;
}

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(`agent-bridge: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`agent-bridge ${name}: ${error.message}\nusage: agent-bridge ${command.usage}\n`);
      return 2;
    }
    const message = error instanceof HistoryError ? `${error.message} [${error.code}]` : error instanceof Error ? error.message : String(error);
    process.stderr.write(`agent-bridge ${name}: ${message}\n`);
    return 1;
  }
}
