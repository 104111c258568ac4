// `agent-bridge search <query> [--agent A] [--project P] [--kind K] [--session S] [--limit N] [--json]`

import { AGENTS, KINDS } from '../../../protocols/records.ts';
import { resolvePaths } from '../../config/paths.ts';
import { canonicalProject } from '../../project/canonical.ts';
import { openReadStore } from '../../store/read-path.ts';
import { queryTerms, search as runSearch } from '../../store/search.ts';
import { UsageError, choiceFlag, intFlag, parse } from '../args.ts';
import { formatTime, highlight, printJson } from '../output.ts';

export async function search(argv: readonly string[]): Promise<number> {
  const { flags, positionals } = parse(
    argv,
    {
      agent: { type: 'string' },
      project: { type: 'string' },
      kind: { type: 'string' },
      session: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
    },
    { min: 1, max: Number.MAX_SAFE_INTEGER, names: '<query>' },
  );
  const query = positionals.join(' ').trim();
  if (query.length === 0 || query.length > 1000) throw new UsageError('the query must be 1 to 1000 characters');
  const agent = choiceFlag(flags.agent, 'agent', AGENTS);
  const kind = choiceFlag(flags.kind, 'kind', KINDS);
  const limit = intFlag(flags.limit, 'limit', { min: 1, max: 50 }) ?? 10;
  const project = flags.project === undefined ? undefined : await canonicalProject(flags.project);
  const { db } = openReadStore(resolvePaths());
  const result =
    db === null
      ? { engine: 'fts5' as const, hits: [], truncated: false }
      : runSearch(db, {
          query,
          limit,
          filters: {
            ...(agent === undefined ? {} : { agent }),
            ...(kind === undefined ? {} : { kind }),
            ...(project === undefined ? {} : { project }),
            ...(flags.session === undefined ? {} : { session: flags.session }),
          },
        });
  db?.close();
  if (flags.json === true) {
    printJson(result);
    return 0;
  }
  const terms = queryTerms(query);
  for (const hit of result.hits) {
    process.stdout.write(`${hit.agent} ${formatTime(hit.at)} ${hit.project ?? ''} ${hit.conversation ?? hit.id}\n  ${highlight(hit.snippet, terms)}\n`);
  }
  process.stdout.write(`${result.hits.length} hit${result.hits.length === 1 ? '' : 's'} (${result.engine}${result.truncated ? ', search cut short' : ''})\n`);
  return 0;
}
