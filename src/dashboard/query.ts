// HTTP query strings → the inputs the MCP tools (and the dashboard's other
// reads) validate. Only the mapping happens here: names, and numbers for
// fields that are numbers; every check is the zod schema's. An unknown or
// repeated parameter is refused; an empty one counts as absent (forms send
// empty fields).

import { badInput } from './errors.ts';

export type QueryField = 'string' | 'number' | 'instant';

const INTEGER = /^-?\d{1,16}$/;

function value(kind: QueryField, text: string): string | number {
  if (kind === 'string') return text;
  // A number field given as text that is not an integer stays text: zod then names the field and says what it must be.
  return INTEGER.test(text) ? Number(text) : text;
}

/** The present, non-empty parameters of `url` mapped through `fields` (query name → [input name, kind]). */
export function queryInput(url: URL, fields: Record<string, readonly [string, QueryField]>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  const seen = new Set<string>();
  for (const [name, text] of url.searchParams) {
    const field = fields[name];
    if (field === undefined) throw badInput(`unknown parameter "${name.slice(0, 64)}" (known: ${Object.keys(fields).join(', ')})`);
    if (seen.has(name)) throw badInput(`parameter "${name}" given more than once`);
    seen.add(name);
    if (text === '') continue;
    out[field[0]] = value(field[1], text);
  }
  return out;
}

export const SEARCH_FIELDS = {
  q: ['query', 'string'],
  project: ['project', 'string'],
  session: ['session', 'string'],
  job: ['job', 'string'],
  agent: ['agent', 'string'],
  kind: ['kind', 'string'],
  since: ['since', 'instant'],
  until: ['until', 'instant'],
  limit: ['limit', 'number'],
} as const satisfies Record<string, readonly [string, QueryField]>;

const FILTERS = new Set(['project', 'session', 'job', 'agent', 'kind', 'since', 'until']);

/** search_history's input from /api/search's query. */
export function searchInput(url: URL): Record<string, unknown> {
  const flat = queryInput(url, SEARCH_FIELDS);
  const filters: Record<string, unknown> = {};
  const input: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(flat)) {
    if (FILTERS.has(key)) filters[key] = v;
    else input[key] = v;
  }
  if (Object.keys(filters).length > 0) input.filters = filters;
  return input;
}

/**
 * The path segments after `prefix`, each percent-decoded once (ids are
 * encoded whole, so a `/` inside an id arrives as %2F). Null when the path
 * does not start with the prefix; a malformed escape is bad input.
 */
export function segmentsAfter(rawPath: string, prefix: string): string[] | null {
  if (!rawPath.startsWith(prefix)) return null;
  return rawPath
    .slice(prefix.length)
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        throw badInput('malformed percent-encoding in the path');
      }
    });
}
