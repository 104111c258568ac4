// agent-bridge: the command-line front end. Each command lives in
// commands/<name>.ts; this file only dispatches and turns errors into exit
// codes: 0 done, 1 failed (the reason on stderr), 2 usage error.

import { HistoryError } from '../../protocols/errors.ts';
import { UsageError } from './args.ts';
import { endQuietlyOnClosedPipe } from './pipe.ts';

type Command = (argv: readonly string[]) => Promise<number>;

/**
 * Each command's module loads only when that command runs: `health`, which a
 * broker may poll every second, does not load the dashboard's HTTP stack or
 * the MCP SDK, and a capture process does not keep them in its heap.
 * (Literal import paths: the build rewrites each to its compiled file.)
 */
const COMMANDS: Record<string, { load: () => Promise<Command>; usage: string }> = {
  serve: {
    load: async () => (await import('./commands/serve.ts')).serve,
    usage: 'serve [--no-dashboard] [--progress-every 1m] run the history service (and the dashboard) until stopped, reporting sources and progress',
  },
  dashboard: {
    load: async () => (await import('./commands/dashboard.ts')).dashboard,
    usage: 'dashboard [--port N] [--host H] [--open] the authenticated local web UI (loopback only)',
  },
  ingest: {
    load: async () => (await import('./commands/ingest.ts')).ingest,
    usage: 'ingest --once [--pace spec|max] [--verify] capture everything pending (--verify: and prove it equals the files), then exit',
  },
  search: {
    load: async () => (await import('./commands/search.ts')).search,
    usage: 'search <query> [--project P] [--session S] [--job J] [--agent A] [--kind K] [--since T] [--until T] [--limit N] [--db FILE] [--json]',
  },
  conversation: {
    load: async () => (await import('./commands/conversation.ts')).conversation,
    usage: 'conversation <id> [--after N] [--limit N] [--all] [--raw] [--db FILE] [--json]',
  },
  mcp: {
    load: async () => (await import('./commands/mcp.ts')).mcp,
    usage: 'mcp [--tool-prefix P]                stdio MCP server: search_history, get_conversation (read-only)',
  },
  sources: {
    load: async () => (await import('./commands/sources.ts')).sources,
    usage: 'sources [--json]                   list captured sources and their cursors',
  },
  raw: {
    load: async () => (await import('./commands/raw.ts')).raw,
    usage: 'raw <source-id> [--generation N]   write the exact captured bytes to stdout',
  },
  status: {
    load: async () => (await import('./commands/status.ts')).status,
    usage: 'status [--json]                    what is captured, writer, live service status (capture ETA), migration',
  },
  health: {
    load: async () => (await import('./commands/health.ts')).health,
    usage: 'health [--json]                    the cached status object: service, capture progress, migration, mirrors, latency, errors',
  },
  doctor: {
    load: async () => (await import('./commands/doctor.ts')).doctor,
    usage: 'doctor [--json]                    check the installation, the store and every source; exit 1 when a check fails',
  },
  settings: {
    load: async () => (await import('./commands/settings.ts')).settings,
    usage: 'settings [--project P] [--agent A] [--json] [--watch] effective settings, each with its layer; config problems',
  },
  recover: {
    load: async () => (await import('./commands/recover.ts')).recover,
    usage: 'recover [--force] [--json]          salvage a damaged history.db into a new store (the damaged file is kept)',
  },
  mirrors: {
    load: async () => (await import('./commands/mirrors.ts')).mirrors,
    usage: 'mirrors [--json]                   every project replica: path, state, records, lag',
  },
  reindex: {
    load: async () => (await import('./commands/reindex.ts')).reindex,
    usage: 'reindex [--retry] [--no-wait] [--json] rebuild search data; --retry resumes a failed migration',
  },
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
    const run = await command.load();
    return await run(rest);
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
