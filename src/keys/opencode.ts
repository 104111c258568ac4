// Names of OpenCode things in history.db (reference-implementation.md §7):
//   conversation   opencode:<session>
//   session row    opencode:<session>:session:<time_updated>
//   message/part   opencode:<session>:<message|part>:<row id>:<time_updated>
//   cursors        opencode-discovery, durable-<message|part>:<session>, and
//                  durable-session:<session> (the last retained session revision)
// One source key per observed row revision: a later revision is a new key,
// so earlier revisions are never touched. The default database
// (<data>/opencode.db) uses the legacy-compatible names above; any other
// database (a channel database, $OPENCODE_DB elsewhere) adds `@<tag>` so two
// databases holding the same session ids can never collide.

export type RowTable = 'message' | 'part';
/** Tables with a per-session cursor: the session row's own last retained revision, and its rows. */
export type CursorTable = 'session' | RowTable;
export type Table = 'session' | RowTable;

export function opencodeConversation(session: string): string {
  return `opencode:${session}`;
}

function prefix(tag: string): string {
  return tag === '' ? 'opencode' : `opencode@${tag}`;
}

export function sessionSource(tag: string, session: string, timeUpdated: number): string {
  return `${prefix(tag)}:${session}:session:${timeUpdated}`;
}

export function rowSource(tag: string, session: string, table: RowTable, id: string, timeUpdated: number): string {
  return `${prefix(tag)}:${session}:${table}:${id}:${timeUpdated}`;
}

export function discoveryCursorKey(tag: string): string {
  return tag === '' ? 'opencode-discovery' : `opencode-discovery@${tag}`;
}

/** Prefix shared by every per-session cursor of one table of one database. */
export function rowCursorPrefix(tag: string, table: CursorTable): string {
  return tag === '' ? `durable-${table}:` : `durable-${table}@${tag}:`;
}

export function rowCursorKey(tag: string, table: CursorTable, session: string): string {
  return `${rowCursorPrefix(tag, table)}${session}`;
}

const SOURCE = /^opencode(?:@[^:]+)?:([^:]+):(session|message|part):/;

export interface ParsedSource {
  readonly session: string;
  readonly table: Table;
}

/** The session and table of one of our record sources, or null for anything else. */
export function parseSource(source: string): ParsedSource | null {
  const match = SOURCE.exec(source);
  return match === null ? null : { session: match[1] as string, table: match[2] as Table };
}
