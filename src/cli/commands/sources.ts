// `agent-bridge sources [--json]`: every captured source and its cursor.

import { resolvePaths } from '../../config/paths.ts';
import { openReader } from '../../store/open.ts';
import { loadSources } from '../../store/source-rows.ts';
import { parse } from '../args.ts';
import { formatBytes, printJson } from '../output.ts';

export async function sources(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  const db = openReader(resolvePaths().historyDb);
  const rows = db === null ? [] : loadSources(db);
  db?.close();
  const list = rows.map((s) => ({
    id: s.id,
    path: s.path,
    format: s.format,
    conversation: s.conversation,
    generation: s.cursor.generation,
    offset: s.cursor.offset,
  }));
  if (flags.json === true) {
    printJson(list);
  } else {
    for (const s of list) process.stdout.write(`${s.format.padEnd(7)} g${s.generation} ${formatBytes(s.offset).padStart(10)}  ${s.conversation}  ${s.path}\n`);
    process.stdout.write(`${list.length} sources\n`);
  }
  return 0;
}
