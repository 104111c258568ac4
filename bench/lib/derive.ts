// Pre-computing what the pipeline derives from the corpus, off the clock:
// every file is cut into chunks exactly as a Lane cuts it (at most
// LIMITS.chunkBytes, back to the last newline, UTF-8 safe, the unfinished
// token carried over) and parsed with the parser actor's own function. The
// baseline and the writer replay then insert these without parsing.

import { closeSync, openSync, readSync } from 'node:fs';
import type { ParseResult, ParseTask } from '../../protocols/records.ts';
import { parseChunk } from '../../actors/parser-actor.ts';
import { LIMITS } from '../../src/config/limits.ts';
import { cutChunk } from '../../src/sources/chunker.ts';
import { CARRY_MAX, trailingToken } from '../../src/text/extract.ts';
import type { CapturedFile } from './corpus.ts';

export interface DerivedChunk {
  readonly file: CapturedFile;
  readonly offset: number;
  readonly result: ParseResult;
}

export interface Derived {
  readonly chunks: DerivedChunk[];
  readonly rawBytes: number;
  /** Search documents (non-empty segment texts) and their UTF-16 length. */
  readonly documents: number;
  readonly textChars: number;
  /** Time spent in parseChunk alone (single thread). */
  readonly parseMs: number;
  readonly readMs: number;
}

/** Same as the lane's carry: the last token of the chunk's tail, from a UTF-8 lead byte. */
function carryFrom(tail: Uint8Array): string {
  let start = 0;
  while (start < tail.length && ((tail[start] as number) & 0xc0) === 0x80) start++;
  return trailingToken(Buffer.from(tail.buffer, tail.byteOffset + start, tail.length - start).toString('utf8'));
}

export function deriveFile(file: CapturedFile, into: DerivedChunk[], clock: { parseMs: number; readMs: number }): void {
  const fd = openSync(file.plan.path, 'r');
  try {
    let offset = 0;
    let startsMidLine = false;
    let carry = '';
    for (;;) {
      const t0 = performance.now();
      const buffer = new Uint8Array(LIMITS.chunkBytes);
      const read = readSync(fd, buffer, 0, buffer.length, offset);
      clock.readMs += performance.now() - t0;
      const length = cutChunk({ bytes: buffer.subarray(0, read), atEof: read < buffer.length, settled: true });
      if (length === 0) return;
      // A copy of exactly the chunk's bytes, as the lane transfers its buffer.
      const bytes = buffer.slice(0, length);
      const endsLine = bytes[length - 1] === 10;
      const task: ParseTask = {
        format: file.plan.format,
        bytes,
        offset,
        startsMidLine,
        carry,
        continues: !endsLine && (length < read || read === buffer.length),
        context: { conversation: file.plan.conversation.id, session: file.plan.conversation.session, ownAgentId: file.plan.ownAgentId },
      };
      carry = endsLine ? '' : carryFrom(bytes.subarray(Math.max(0, length - CARRY_MAX)));
      startsMidLine = !endsLine;
      const t1 = performance.now();
      const result = parseChunk(task);
      clock.parseMs += performance.now() - t1;
      into.push({ file, offset, result });
      offset += length;
    }
  } finally {
    closeSync(fd);
  }
}

export function deriveAll(files: readonly CapturedFile[]): Derived {
  const chunks: DerivedChunk[] = [];
  const clock = { parseMs: 0, readMs: 0 };
  for (const file of files) deriveFile(file, chunks, clock);
  let rawBytes = 0;
  let documents = 0;
  let textChars = 0;
  for (const chunk of chunks) {
    rawBytes += chunk.result.bytes.length;
    for (const segment of chunk.result.segments) {
      if (segment.text === '') continue;
      documents++;
      textChars += segment.text.length;
    }
  }
  return { chunks, rawBytes, documents, textChars, parseMs: clock.parseMs, readMs: clock.readMs };
}

function bodyOf(chunk: DerivedChunk): number {
  let n = 0;
  for (const segment of chunk.result.segments) n += segment.text.length;
  return n;
}

/**
 * Group chunks into the transactions the pipeline would commit: like
 * src/ingest/batcher.ts collectBatch, at most LIMITS.sourcesPerBatch files
 * per batch, taken alternately, until the raw or text budget is reached (the
 * chunk that crosses it is included) or both files are done; a finished
 * file's place goes to the next file at the next batch. (The per-source turn
 * limit is not emulated: it changes which files share a batch, not how many
 * batches there are.)
 */
export function batches<T extends DerivedChunk>(chunks: readonly T[]): T[][] {
  const files: T[][] = [];
  let current: CapturedFile | null = null;
  for (const chunk of chunks) {
    if (chunk.file !== current) {
      files.push([]);
      current = chunk.file;
    }
    (files[files.length - 1] as T[]).push(chunk);
  }
  const out: T[][] = [];
  let lanes: T[][] = [];
  let next = 0;
  while (next < files.length || lanes.length > 0) {
    while (lanes.length < LIMITS.sourcesPerBatch && next < files.length) lanes.push([...(files[next++] as T[])]);
    const batch: T[] = [];
    let raw = 0;
    let body = 0;
    const within = (): boolean => raw < LIMITS.batchRawBytes && body < LIMITS.batchBodyBytes;
    let active = lanes;
    while (active.length > 0 && within()) {
      const still: T[][] = [];
      for (const lane of active) {
        if (!within()) {
          still.push(lane);
          continue;
        }
        const chunk = lane.shift();
        if (chunk === undefined) continue;
        batch.push(chunk);
        raw += chunk.result.bytes.length;
        body += bodyOf(chunk);
        still.push(lane);
      }
      active = still;
    }
    lanes = lanes.filter((lane) => lane.length > 0);
    if (batch.length > 0) out.push(batch);
  }
  return out;
}
