// The parser pool: piscina threads running parser-actor.ts. Chunks travel as
// transferred ArrayBuffers in both directions, never copied; so do the
// segments' texts on the way back (protocols/segment-texts.ts).

import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { ParsedChunk, ParseTask } from '../protocols/records.ts';
import { LIMITS } from '../src/config/limits.ts';

/** Parser threads: one less than the cores (the writer needs one), at least one, at most four. */
export function parserThreads(env: NodeJS.ProcessEnv = process.env): number {
  const configured = Number(env.AGENT_BRIDGE_HISTORY_PARSERS);
  if (Number.isInteger(configured) && configured > 0) return Math.min(configured, 16);
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/** The file piscina loads in each thread: CommonJS, never require(esm) (see parser-entry.cjs). */
export const PARSER_ENTRY = new URL('./parser-entry.cjs', import.meta.url);

export class ParserPool {
  readonly name = 'parser';
  private readonly pool: Piscina;

  constructor(threads: number) {
    this.pool = new Piscina({
      filename: PARSER_ENTRY.href,
      minThreads: 1,
      maxThreads: threads,
      idleTimeout: 30_000,
      // Bounded: lanes read ahead at most readAheadChunks each, a reindex step sends 16.
      maxQueue: 256,
      resourceLimits: { maxYoungGenerationSizeMb: LIMITS.workerYoungGenerationMb },
    });
  }

  parse = (task: ParseTask): Promise<ParsedChunk> => this.pool.run(task, { transferList: [task.bytes.buffer as ArrayBuffer] }) as Promise<ParsedChunk>;

  async stop(): Promise<void> {
    await this.pool.destroy();
  }
}
