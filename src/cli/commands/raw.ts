// `agent-bridge raw <source-id> [--generation N]`: the exact captured bytes
// of one generation of a source, concatenated in offset order, to stdout.
// A path names the source captured there: its current path, or one it had
// before it moved (history_source_paths).

import { HistoryError } from '../../../protocols/errors.ts';
import { resolvePaths } from '../../config/paths.ts';
import { onStore } from '../../store/store-errors.ts';
import { type Db, openReader } from '../../store/open.ts';
import { sourcesAtPath } from '../../store/source-rows.ts';
import { generationsOf, retainedChunks } from '../../store/records.ts';
import { intFlag, parse } from '../args.ts';

async function write(bytes: Uint8Array): Promise<void> {
  if (!process.stdout.write(bytes)) await new Promise<void>((resolve) => process.stdout.once('drain', () => resolve()));
}

export async function raw(argv: readonly string[]): Promise<number> {
  const { flags, positionals } = parse(argv, { generation: { type: 'string' } }, { min: 1, max: 1, names: '<source-id>' });
  const path = resolvePaths().historyDb;
  const db = openReader(path);
  if (db === null) throw new HistoryError('BAD_INPUT', 'no history has been captured yet (history.db does not exist)');
  try {
    const source = onStore(path, () => sourceNamed(db, positionals[0] as string));
    const generations = onStore(path, () => generationsOf(db, source));
    if (generations.length === 0) throw new HistoryError('BAD_INPUT', `unknown source: ${source} (see \`agent-bridge sources\`)`);
    const generation = intFlag(flags.generation, 'generation', { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? (generations.at(-1) as number);
    if (!generations.includes(generation)) {
      throw new HistoryError('BAD_INPUT', `source ${source} has no generation ${generation} (it has ${generations.join(', ')})`);
    }
    const chunks = retainedChunks(db, source, generation);
    for (;;) {
      const next = onStore(path, () => chunks.next());
      if (next.done === true) break;
      await write(next.value.raw);
    }
    return 0;
  } finally {
    db.close();
  }
}

/** The source id `name` is, or the one source captured at the path `name`. */
function sourceNamed(db: Db, name: string): string {
  if (generationsOf(db, name).length > 0) return name;
  const ids = sourcesAtPath(db, name);
  if (ids.length > 1) throw new HistoryError('BAD_INPUT', `several sources were captured at ${name}: ${ids.join(', ')}; name one by its id`);
  return ids[0] ?? name;
}
