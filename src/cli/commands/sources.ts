// `agent-bridge sources [--json]`: every captured source, its cursor, and
// every generation it retains (a truncated or replaced file keeps its earlier
// generations; `raw --generation N` gives any of them back).

import type { SourceSummary } from '../../../protocols/dashboard.ts';
import { resolvePaths } from '../../config/paths.ts';
import { generationsBySource, type GenerationInfo } from '../../store/generations.ts';
import { onStore } from '../../store/store-errors.ts';
import { openReader } from '../../store/open.ts';
import { loadSources } from '../../store/source-rows.ts';
import { parse } from '../args.ts';
import { formatBytes, formatTime, printJson } from '../output.ts';

/** A source as the dashboard lists it (id, path, format, conversation, cursor), with its generations' capture times. */
export type SourceListing = Omit<SourceSummary, 'generations'> & {
  /** Every retained generation, oldest first. */
  readonly generations: readonly GenerationInfo[];
};

function captured(g: GenerationInfo): string {
  if (g.firstCapturedAt === null || g.lastCapturedAt === null) return '';
  const first = formatTime(g.firstCapturedAt);
  const last = formatTime(g.lastCapturedAt);
  return first === last ? `  captured ${first}` : `  captured ${first} .. ${last}`;
}

export async function sources(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  const db = openReader(resolvePaths().historyDb);
  let list: SourceListing[] = [];
  if (db !== null) {
    try {
      const path = resolvePaths().historyDb;
      const generations = onStore(path, () => generationsBySource(db));
      list = onStore(path, () => loadSources(db)).map((s) => ({
        id: s.id,
        path: s.path,
        format: s.format,
        conversation: s.conversation,
        generation: s.cursor.generation,
        offset: s.cursor.offset,
        generations: generations.get(s.id) ?? [],
      }));
    } finally {
      db.close();
    }
  }
  if (flags.json === true) {
    printJson(list);
    return 0;
  }
  for (const s of list) {
    process.stdout.write(`${s.format.padEnd(7)} g${s.generation} ${formatBytes(s.offset).padStart(10)}  ${s.conversation}  ${s.path}\n`);
    // Earlier generations (and the current one when it is not the only one) on their own lines.
    if (s.generations.length > 1 || (s.generations.length === 1 && s.generations[0]?.generation !== s.generation)) {
      for (const g of s.generations) process.stdout.write(`        g${g.generation} ${formatBytes(g.bytes).padStart(10)}${captured(g)}\n`);
    }
  }
  process.stdout.write(`${list.length} sources\n`);
  return 0;
}
