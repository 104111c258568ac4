// `agent-bridge search <query> [--project P] [--session S] [--job J] [--agent A] [--kind K]
//   [--since T] [--until T] [--limit N] [--db FILE] [--json]`
// Reads the store directly (read-only), like every reader; the same input
// rules as the search_history tool apply. --db reads one store file instead
// of the home's: a project replica (conversations-<hash>.db) or a history.db.

import { resolve } from 'node:path';
import { HistoryError } from '../../../protocols/errors.ts';
import { SEARCH_LIMIT, type SearchHistoryOutput } from '../../../protocols/search.ts';
import { resolvePaths } from '../../config/paths.ts';
import { HistoryReader } from '../../read/history-reader.ts';
import { parseQuery } from '../../store/search.ts';
import { UsageError, intFlag, parse } from '../args.ts';
import { formatTime, highlight, printJson } from '../output.ts';
import { parseTimeFlag } from '../time.ts';

const FLAGS = {
  project: { type: 'string' },
  session: { type: 'string' },
  job: { type: 'string' },
  agent: { type: 'string' },
  kind: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  db: { type: 'string' },
} as const;

function render(result: SearchHistoryOutput, query: string): string {
  const words = parseQuery(query).words;
  const lines: string[] = [];
  for (const hit of result.hits) {
    const where = [hit.project, hit.conversation ?? hit.id].filter((s): s is string => s !== null && s !== '').join('  ');
    lines.push(`${hit.agent}  ${formatTime(hit.at)}  ${where}`, `  ${highlight(hit.snippet, words)}`);
  }
  const count = `${result.hits.length} hit${result.hits.length === 1 ? '' : 's'} (${result.engine}${result.store === 'legacy' ? ', legacy bridge.db' : result.store === 'replica' ? ', project replica' : ''})`;
  lines.push(count);
  if (result.notice !== undefined) lines.push(`note: ${result.notice}`);
  return `${lines.join('\n')}\n`;
}

export async function search(argv: readonly string[]): Promise<number> {
  const { flags, positionals } = parse(argv, FLAGS, { min: 1, max: Number.MAX_SAFE_INTEGER, names: '<query>' });
  const query = positionals.join(' ');
  const filters: Record<string, unknown> = {};
  for (const name of ['session', 'job', 'agent', 'kind'] as const) if (flags[name] !== undefined) filters[name] = flags[name];
  // `--project .` and other explicitly relative paths mean the current directory's project.
  if (flags.project !== undefined) filters.project = /^\.\.?(?:[\\/]|$)/.test(flags.project) ? resolve(flags.project) : flags.project;
  const since = parseTimeFlag(flags.since, 'since');
  const until = parseTimeFlag(flags.until, 'until');
  if (since !== undefined) filters.since = since;
  if (until !== undefined) filters.until = until;
  const limit = intFlag(flags.limit, 'limit', SEARCH_LIMIT);
  const reader = new HistoryReader(resolvePaths(), flags.db === undefined ? {} : { file: resolve(flags.db) });
  let result: SearchHistoryOutput;
  try {
    result = await reader.search({ query, filters, ...(limit === undefined ? {} : { limit }) });
  } catch (error) {
    // Input the tool schema rejects is a usage error on the command line.
    if (error instanceof HistoryError && error.code === 'BAD_INPUT') throw new UsageError(error.message);
    throw error;
  } finally {
    reader.close();
  }
  if (flags.json === true) printJson(result);
  else process.stdout.write(render(result, query));
  return 0;
}
