// Building one batch: take parsed chunks from at most LIMITS.sourcesPerBatch
// lanes until the raw or derived-text budget is reached (the chunk that
// crosses a budget is included), then resolve the projects the chunks name.
// All of this happens before, and outside, the write transaction.

import PQueue from 'p-queue';
import type { Limits } from '../config/limits.ts';
import type { CommitChunk } from '../../protocols/history.ts';
import type { Lane, ReadyChunk } from './lane.ts';

export interface Batch {
  readonly chunks: readonly ReadyChunk[];
  readonly rawBytes: number;
  readonly bodyBytes: number;
}

/** The chunk's derived text in bytes (UTF-8, as SQLite stores it; a text carried as a string, in UTF-16 units). */
export function bodyBytesOf(chunk: ReadyChunk): number {
  let total = chunk.result.texts.byteLength;
  for (const segment of chunk.result.segments) total += segment.illFormedText?.length ?? 0;
  return total;
}

/**
 * Drain up to `sourcesPerBatch` lanes concurrently (a p-queue of that
 * concurrency runs one drain per source) into one batch. The drains share
 * the raw and derived-text budgets; each checks them before taking a chunk,
 * so the chunk that crosses a budget is the last one.
 */
export async function collectBatch(lanes: readonly Lane[], limits: Limits): Promise<Batch> {
  const taken: ReadyChunk[][] = [];
  let rawBytes = 0;
  let bodyBytes = 0;
  const within = (): boolean => rawBytes < limits.batchRawBytes && bodyBytes < limits.batchBodyBytes;
  const queue = new PQueue({ concurrency: limits.sourcesPerBatch });
  const drains = lanes.slice(0, limits.sourcesPerBatch).map((lane, index) =>
    queue.add(async () => {
      const chunks: ReadyChunk[] = (taken[index] = []);
      while (within()) {
        const chunk = await lane.take();
        if (chunk === null) return;
        chunks.push(chunk);
        rawBytes += chunk.result.bytes.length;
        bodyBytes += bodyBytesOf(chunk);
      }
    }),
  );
  await Promise.all(drains);
  return { chunks: taken.flat(), rawBytes, bodyBytes };
}

/** The history actor's form of a batch; projects are canonicalised here, never in the transaction. */
export async function toCommitChunks(batch: Batch, resolveProject: (cwd: string) => Promise<string>): Promise<CommitChunk[]> {
  return Promise.all(
    batch.chunks.map(async (chunk) => ({
      source: chunk.source.id,
      conversation: chunk.source.context.conversation,
      generation: chunk.generation,
      offset: chunk.offset,
      bytes: chunk.result.bytes,
      segments: chunk.result.segments,
      texts: chunk.result.texts,
      hints: chunk.result.hints,
      project: chunk.result.hints.cwd === null ? null : await resolveProject(chunk.result.hints.cwd),
      after: chunk.after,
    })),
  );
}
