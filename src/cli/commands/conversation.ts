// `agent-bridge conversation <id> [--after N] [--limit N] [--all] [--raw] [--db FILE] [--json]`
// One page of a conversation's retained records (get_conversation), or with
// --all every page. --raw writes the records' exact bytes, in record id
// order, to stdout; --json prints the page object (with --all: one page
// object per line). --db reads one store file (a project replica or a
// history.db) instead of the home's.

import { resolve } from 'node:path';
import { HistoryError } from '../../../protocols/errors.ts';
import { CONVERSATION_LIMIT, type GetConversationOutput } from '../../../protocols/search.ts';
import { resolvePaths } from '../../config/paths.ts';
import { HistoryReader } from '../../read/history-reader.ts';
import { UsageError, intFlag, parse } from '../args.ts';
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

async function human(page: GetConversationOutput): Promise<void> {
  for (const r of page.records) {
    const bytes = Buffer.byteLength(r.raw, 'base64');
    const flags = [r.part === null ? '' : `part ${r.part}`, r.foreignHome === true ? 'foreign home' : ''].filter((s) => s !== '').join(', ');
    await write(`--- #${r.id}  ${formatTime(r.at)}  ${r.source} g${r.generation} @${r.offset}  ${formatBytes(bytes)}${flags === '' ? '' : `  (${flags})`}\n`);
    await write(r.text.endsWith('\n') ? r.text : `${r.text}\n`);
  }
}

export async function conversation(argv: readonly string[]): Promise<number> {
  const { flags, positionals } = parse(argv, FLAGS, { min: 1, max: 1, names: '<conversation id>' });
  if (flags.raw === true && flags.json === true) throw new UsageError('--raw and --json cannot be combined');
  const id = positionals[0] as string;
  let after = intFlag(flags.after, 'after', { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0;
  const limit = intFlag(flags.limit, 'limit', CONVERSATION_LIMIT);
  const reader = new HistoryReader(resolvePaths(), flags.db === undefined ? {} : { file: resolve(flags.db) });
  try {
    for (let first = true; ; first = false) {
      let page: GetConversationOutput;
      try {
        page = await reader.getConversation({ id, after, ...(limit === undefined ? {} : { limit }) });
      } catch (error) {
        if (error instanceof HistoryError && error.code === 'BAD_INPUT') throw new UsageError(error.message);
        throw error;
      }
      if (flags.raw === true) {
        for (const r of page.records) await write(Buffer.from(r.raw, 'base64'));
      } else if (flags.json === true) {
        if (flags.all === true) await write(`${JSON.stringify(page)}\n`);
        else printJson(page);
      } else {
        if (first) await write(header(page, id));
        await human(page);
        if (flags.all !== true && page.next !== null) await write(`more: agent-bridge conversation ${id} --after ${page.next}\n`);
      }
      if (flags.all !== true || page.next === null) return 0;
      after = page.next;
    }
  } finally {
    reader.close();
  }
}
