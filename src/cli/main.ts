// agent-bridge: the command-line front end. Each command lives in
// commands/<name>.ts; this file only dispatches and turns errors into exit
// codes: 0 done, 1 failed (the reason on stderr), 2 usage error.

import { HistoryError } from '../../protocols/errors.ts';
import { UsageError } from './args.ts';
import { endQuietlyOnClosedPipe } from './pipe.ts';
import { conversation } from './commands/conversation.ts';
import { dashboard } from './commands/dashboard.ts';
import { doctor } from './commands/doctor.ts';
import { health } from './commands/health.ts';
import { ingest } from './commands/ingest.ts';
import { mcp } from './commands/mcp.ts';
import { mirrors } from './commands/mirrors.ts';
import { raw } from './commands/raw.ts';
import { recover } from './commands/recover.ts';
import { reindex } from './commands/reindex.ts';
import { search } from './commands/search.ts';
import { serve } from './commands/serve.ts';
import { settings } from './commands/settings.ts';
import { sources } from './commands/sources.ts';
import { status } from './commands/status.ts';

type Command = (argv: readonly string[]) => Promise<number>;

const COMMANDS: Record<string, { run: Command; usage: string }> = {
  serve: { run: serve, usage: 'serve [--no-dashboard] [--progress-every 1m] run the history service (and the dashboard) until stopped, reporting sources and progress' },
  dashboard: { run: dashboard, usage: 'dashboard [--port N] [--host H] [--open] the authenticated local web UI (loopback only)' },
  ingest: { run: ingest, usage: 'ingest --once [--pace spec|max] [--verify] capture everything pending (--verify: and prove it equals the files), then exit' },
  search: {
    run: search,
    usage: 'search <query> [--project P] [--session S] [--job J] [--agent A] [--kind K] [--since T] [--until T] [--limit N] [--db FILE] [--json]',
  },
  conversation: { run: conversation, usage: 'conversation <id> [--after N] [--limit N] [--all] [--raw] [--db FILE] [--json]' },
  mcp: { run: mcp, usage: 'mcp [--tool-prefix P]                stdio MCP server: search_history, get_conversation (read-only)' },
  sources: { run: sources, usage: 'sources [--json]                   list captured sources and their cursors' },
  raw: { run: raw, usage: 'raw <source-id> [--generation N]   write the exact captured bytes to stdout' },
  status: { run: status, usage: 'status [--json]                    what is captured, writer, live service status (capture ETA), migration' },
  health: { run: health, usage: 'health [--json]                    the cached status object: service, capture progress, migration, mirrors, latency, errors' },
  doctor: { run: doctor, usage: 'doctor [--json]                    check the installation, the store and every source; exit 1 when a check fails' },
  settings: { run: settings, usage: 'settings [--project P] [--agent A] [--json] [--watch] effective settings, each with its layer; config problems' },
  recover: { run: recover, usage: 'recover [--force] [--json]          salvage a damaged history.db into a new store (the damaged file is kept)' },
  mirrors: { run: mirrors, usage: 'mirrors [--json]                   every project replica: path, state, records, lag' },
  reindex: { run: reindex, usage: 'reindex [--retry] [--no-wait] [--json] rebuild search data; --retry resumes a failed migration' },
};

function usage(): string {
  return `usage: agent-bridge <command> [options]\n\n${Object.values(COMMANDS)
    .map((c) => `  ${c.usage}`)
    .join('\n')}\n`;
}

export async function main(argv: readonly string[]): Promise<number> {
  endQuietlyOnClosedPipe();
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
