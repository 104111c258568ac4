// `agent-bridge conversation <id> [--after N] [--limit N] [--all] [--raw] [--db FILE] [--json]`
// One page of a conversation's retained records (get_conversation), or with
// --all every page. --raw writes the records' exact bytes, in record id
// order, to stdout; --json prints the page object (with --all: one page
// object per line) with each record's text; --json --raw adds each record's
// exact bytes as base64 (`raw`), which is get_conversation's own shape.
// --db reads one store file (a project replica or a history.db) instead of the
// home's.

import { resolve } from 'node:path';
import { HistoryError } from '../../../protocols/errors.ts';
import { CONVERSATION_LIMIT, type ConversationRecord, type GetConversationOutput } from '../../../protocols/search.ts';
import { resolvePaths } from '../../config/paths.ts';
import { HistoryReader } from '../../read/history-reader.ts';
import { UsageError, intFlag, parse } from '../args.ts';
import { LineJoiner } from '../line-joiner.ts';
import { formatBytes, formatTime, printJson } from '../output.ts';

const FLAGS = {
  after: { type: 'string' },
  limit: { type: 'string' },
  all: { type: 'boolean' },
  raw: { type: 'boolean' },
  json: { type: 'boolean' },
  db: { type: 'string' },
} as const;

async function write(data: string | Uint8Array): Promise<void> {
  if (!process.stdout.write(data)) await new Promise<void>((resolve) => process.stdout.once('drain', () => resolve()));
}

function header(page: GetConversationOutput, id: string): string {
  const c = page.conversation;
  if (c === null) return `conversation ${id}: ${page.records.length === 0 ? 'not found' : 'no metadata'}\n`;
  const parts = [`conversation ${c.id}`, `agent ${c.agent}`, `session ${c.session}`, `kind ${c.kind}`];
  if (c.project !== '') parts.push(`project ${c.project}`);
  if (c.parent !== null) parts.push(`parent ${c.parent}`);
  if (c.job !== null) parts.push(`job ${c.job}`);
  return `${parts.join('  ')}\n`;
}

async function human(page: GetConversationOutput, lines: LineJoiner): Promise<void> {
  for (const r of page.records) {
    const bytes = Buffer.byteLength(r.raw, 'base64');
    const flags = [r.part === null ? '' : `part ${r.part}`, r.foreignHome === true ? 'foreign home' : ''].filter((s) => s !== '').join(', ');
    await write(`--- #${r.id}  ${formatTime(r.at)}  ${r.source} g${r.generation} @${r.offset}  ${formatBytes(bytes)}${flags === '' ? '' : `  (${flags})`}\n`);
    const text = lines.take({ source: r.source, generation: r.generation, offset: r.offset, raw: Buffer.from(r.raw, 'base64') });
    await write(text.endsWith('\n') ? text : `${text}\n`);
  }
}

/** The page as --json prints it without --raw: every record's text, not its bytes. */
function withoutRaw(page: GetConversationOutput): Omit<GetConversationOutput, 'records'> & { records: Array<Omit<ConversationRecord, 'raw'>> } {
  return { ...page, records: page.records.map(({ raw: _raw, ...rest }) => rest) };
}

export async function conversation(argv: readonly string[]): Promise<number> {
  const { flags, positionals } = parse(argv, FLAGS, { min: 1, max: 1, names: '<conversation id>' });
  const id = positionals[0] as string;
  let after = intFlag(flags.after, 'after', { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0;
  const limit = intFlag(flags.limit, 'limit', CONVERSATION_LIMIT);
  const reader = new HistoryReader(resolvePaths(), flags.db === undefined ? {} : { file: resolve(flags.db) });
  const lines = new LineJoiner();
  try {
    for (let first = true; ; first = false) {
      let page: GetConversationOutput;
      try {
        page = await reader.getConversation({ id, after, ...(limit === undefined ? {} : { limit }) });
      } catch (error) {
        if (error instanceof HistoryError && error.code === 'BAD_INPUT') throw new UsageError(error.message);
        throw error;
      }
      if (flags.json === true) {
        const shown = flags.raw === true ? page : withoutRaw(page);
        if (flags.all === true) await write(`${JSON.stringify(shown)}\n`);
        else printJson(shown);
      } else if (flags.raw === true) {
        for (const r of page.records) await write(Buffer.from(r.raw, 'base64'));
      } else {
        if (first) await write(header(page, id));
        await human(page, lines);
        if (flags.all !== true || page.next === null) {
          const unfinished = lines.flush(page.next !== null);
          if (unfinished !== null) await write(unfinished);
        }
        if (flags.all !== true && page.next !== null) await write(`more: agent-bridge conversation ${id} --after ${page.next}\n`);
      }
      if (flags.all !== true || page.next === null) return 0;
      after = page.next;
    }
  } finally {
    reader.close();
  }
}
