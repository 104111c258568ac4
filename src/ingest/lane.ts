// A lane reads one file source forward from its committed cursor: it decides
// the generation, reads chunks (at most LIMITS.chunkBytes, cut by the
// chunker), hands each to the parser pool at once and keeps a bounded number
// read ahead, so parsing overlaps the writer's commits. Chunks come out in
// file order. A lane never writes: the batcher commits what it takes.
//
// Reads happen here, on open file handles, outside any transaction.

import type { FileHandle } from 'node:fs/promises';
import { openSourceFile } from '../os/source-file.ts';
import { DOCUMENT_FORMATS, HOLD_BACK_BYTES, HOLD_BACK_FORMATS, WHOLE_LINE_MAX, type ChunkContext, type LineFormat, type ParsedChunk, type ParseTask } from '../../protocols/records.ts';
import { cutChunk } from '../sources/chunker.ts';
import type { GenerationCheck } from '../sources/identity.ts';
import { ANCHOR_BYTES, HEAD_BYTES, anchorOf, checkGeneration, identityOf, sha256Hex } from '../sources/identity.ts';
import { CARRY_MAX, carryOf } from '../text/extract.ts';
import type { SourceCursor } from '../../protocols/sources.ts';
import { readAt } from './read-at.ts';
import { nextLineHead } from './line-head.ts';
import { sameBytes, spotChecksPass } from './prefix-checks.ts';

export interface LaneSource {
  readonly id: string;
  readonly path: string;
  readonly format: LineFormat;
  readonly context: ChunkContext;
  readonly cursor: SourceCursor;
}

export interface LaneDeps {
  readonly chunkBytes: number;
  readonly readAhead: number;
  readonly parse: (task: ParseTask) => Promise<ParsedChunk>;
  /** Whether an unfinished last line may be captured now. */
  readonly settled: (mtimeMs: number) => boolean;
  /** The retained chunks of a generation, in offset order (for a same-size rewrite check). */
  readonly retained: (source: string, generation: number) => Iterable<{ offset: number; raw: Uint8Array }>;
  /** The retained record of a generation holding the byte at `offset` (spot checks). */
  readonly spanAt: (source: string, generation: number, offset: number) => { offset: number; raw: Uint8Array } | undefined;
  /** Windows of the captured prefix compared with the file when a lane continues a generation, and their size. */
  /** Retained bytes [from, to) of a generation (the start of the line a lane continues), null where missing. */
  readonly retainedBytes: (source: string, generation: number, from: number, to: number) => Uint8Array | null;
  readonly spotChecks: number;
  readonly spotCheckBytes: number;
  /** Where the windows lie, in [0, 1) of the captured prefix (Math.random unless a test decides). */
  readonly random?: () => number;
}

export interface ReadyChunk {
  readonly source: LaneSource;
  readonly generation: number;
  readonly offset: number;
  readonly result: ParsedChunk;
  readonly after: Pick<SourceCursor, 'identity' | 'anchor' | 'head' | 'size' | 'mtimeMs'>;
}

export interface LaneStart {
  readonly generation: number;
  readonly offset: number;
  readonly check: GenerationCheck;
  /**
   * Cursor facts to record before reading: a touched file's new facts when
   * its captured bytes are unchanged, or the start of a new generation (so a
   * file truncated to nothing is not examined again and again).
   */
  readonly cursorUpdate: Partial<SourceCursor> | null;
}

export class Lane {
  private readonly queue: Array<Promise<ReadyChunk>> = [];
  private producing: Promise<void> | null = null;
  private readOffset: number;
  private startsMidLine: boolean;
  private carry: string;
  /** Last ANCHOR_BYTES bytes before readOffset. */
  private tail: Uint8Array;
  /** First HEAD_BYTES bytes of the file, as far as read. */
  private headBytes: Uint8Array;
  private headDigest: string;
  /** The bytes of the unfinished line before readOffset, while at most WHOLE_LINE_MAX; null when longer or unknown. */
  private lineHead: Uint8Array | null;
  private size: number;
  private mtimeMs: number;
  private eof = false;
  private closed = false;
  failure: unknown = null;

  private constructor(
    readonly source: LaneSource,
    private readonly handle: FileHandle,
    private readonly deps: LaneDeps,
    readonly start: LaneStart,
    private readonly identity: string,
    facts: { size: number; mtimeMs: number; before: Uint8Array; head: Uint8Array; lineHead: Uint8Array | null },
  ) {
    this.lineHead = facts.lineHead;
    this.readOffset = start.offset;
    this.size = facts.size;
    this.mtimeMs = facts.mtimeMs;
    const continuing = start.offset > 0 && start.generation === source.cursor.generation;
    this.startsMidLine = continuing && facts.before.length > 0 && facts.before[facts.before.length - 1] !== 10;
    this.carry = this.startsMidLine ? carryOf(facts.before) : '';
    this.tail = continuing ? facts.before.slice(-ANCHOR_BYTES) : new Uint8Array(0);
    this.headBytes = facts.head;
    this.headDigest = start.offset >= HEAD_BYTES ? sha256Hex(facts.head) : '';
  }

  /** Open the file and decide where capture continues (generation and offset). */
  static async open(source: LaneSource, deps: LaneDeps): Promise<Lane> {
    const handle = await openSourceFile(source.path);
    try {
      const stat = await handle.stat();
      const identity = identityOf(stat);
      const cursor = source.cursor;
      const readable = Math.min(cursor.offset, stat.size);
      const before = cursor.offset > 0 && stat.size >= cursor.offset ? await readAt(handle, cursor.offset - Math.min(cursor.offset, CARRY_MAX), Math.min(cursor.offset, CARRY_MAX)) : new Uint8Array(0);
      const head = await readAt(handle, 0, Math.min(readable, HEAD_BYTES));
      let check = checkGeneration(cursor, {
        identity,
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        anchor: anchorOf(before, before.length === 0 ? 0 : cursor.offset),
        head: cursor.head === '' ? '' : sha256Hex(head),
      });
      let cursorUpdate: LaneStart['cursorUpdate'] = null;
      if (check.verdict === 'continue' && cursor.offset > 0 && !(await spotChecksPass(handle, source, deps))) check = { verdict: 'new', reason: 'spot' };
      if (check.verdict === 'verify') {
        const same = await sameBytes(handle, source.format, deps.retained(source.id, cursor.generation), cursor.offset);
        check = same ? { verdict: 'continue' } : { verdict: 'new', reason: 'anchor' };
        if (same) cursorUpdate = { identity, size: stat.size, mtimeMs: stat.mtimeMs };
      }
      const fresh = check.verdict === 'new';
      if (fresh) {
        cursorUpdate = { generation: cursor.generation + 1, offset: 0, identity, anchor: '', head: '', size: stat.size, mtimeMs: stat.mtimeMs, route: null, lineStart: 0, at: null };
      }
      const start: LaneStart = {
        generation: fresh ? cursor.generation + 1 : cursor.generation,
        offset: fresh ? 0 : cursor.offset,
        check,
        cursorUpdate,
      };
      // The start of a line the cursor stopped inside, to index that line whole when it completes.
      const lineLength = cursor.offset - cursor.lineStart;
      const lineHead = !fresh && lineLength > 0 && lineLength <= WHOLE_LINE_MAX ? deps.retainedBytes(source.id, cursor.generation, cursor.lineStart, cursor.offset) : null;
      return new Lane(source, handle, deps, start, identity, {
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        before: fresh ? new Uint8Array(0) : before,
        head: fresh ? new Uint8Array(0) : head,
        lineHead,
      });
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Keep up to `readAhead` chunks read and parsing. */
  private fill(): void {
    if (this.producing !== null || this.eof || this.closed || this.failure !== null) return;
    this.producing = (async () => {
      try {
        while (this.queue.length < this.deps.readAhead && !this.eof && !this.closed) {
          const next = await this.readNext();
          if (next === null) {
            this.eof = true;
            break;
          }
          next.ready.catch(() => undefined); // observed by take()
          this.queue.push(next.ready);
        }
      } catch (error) {
        this.failure = error;
      } finally {
        this.producing = null;
      }
    })();
  }

  /** Read and cut the next chunk and start parsing it (wrapped, so awaiting the read does not await the parse). */
  private async readNext(): Promise<{ ready: Promise<ReadyChunk> } | null> {
    const offset = this.readOffset;
    const buffer = await readAt(this.handle, offset, this.deps.chunkBytes);
    const atEof = buffer.length < this.deps.chunkBytes;
    // At the end, and whenever the file has grown past the size last known (a file still being written when
    // the lane opened), the size is asked again: the cursor carries it, and the backlog the status shows is
    // counted from it (SourceTable.backlogBytes). At most one stat per chunk.
    if (atEof || offset + buffer.length > this.size) {
      const stat = await this.handle.stat();
      this.size = stat.size;
      this.mtimeMs = stat.mtimeMs;
    }
    const length = cutChunk({
      bytes: buffer,
      atEof,
      settled: this.deps.settled(this.mtimeMs),
      document: DOCUMENT_FORMATS.has(this.source.format),
      holdBack: HOLD_BACK_FORMATS.has(this.source.format) ? HOLD_BACK_BYTES : 0,
    });
    if (length === 0) return null;
    const bytes = buffer.subarray(0, length);
    const end = offset + length;

    // Facts about the file after this chunk, computed before the bytes are transferred.
    const joined = new Uint8Array(this.tail.length + Math.min(length, ANCHOR_BYTES));
    joined.set(this.tail);
    joined.set(bytes.subarray(Math.max(0, length - ANCHOR_BYTES)), this.tail.length);
    this.tail = joined.slice(-ANCHOR_BYTES);
    if (offset < HEAD_BYTES) {
      const head = new Uint8Array(Math.min(end, HEAD_BYTES));
      head.set(this.headBytes.subarray(0, Math.min(offset, HEAD_BYTES)));
      head.set(bytes.subarray(0, head.length - Math.min(offset, head.length)), Math.min(offset, head.length));
      this.headBytes = head;
      this.headDigest = sha256Hex(head);
    }
    const after = {
      identity: this.identity,
      anchor: anchorOf(this.tail, end),
      head: this.headDigest,
      size: Math.max(this.size, end),
      mtimeMs: this.mtimeMs,
    };
    const endsLine = bytes[length - 1] === 10;
    const lineHead = this.startsMidLine ? this.lineHead : null;
    const task: ParseTask = {
      format: this.source.format,
      bytes,
      offset,
      startsMidLine: this.startsMidLine,
      carry: this.carry,
      continues: !endsLine && end < after.size,
      ...(lineHead === null ? {} : { lineHead }),
      context: this.source.context,
    };
    // Copied now: the chunk's bytes are transferred to the parser.
    this.lineHead = endsLine ? null : nextLineHead(lineHead, this.startsMidLine, bytes);
    this.carry = endsLine ? '' : carryOf(bytes.subarray(Math.max(0, length - CARRY_MAX)));
    this.startsMidLine = !endsLine;
    this.readOffset = end;
    const generation = this.start.generation;
    const source = this.source;
    return { ready: this.deps.parse(task).then((result) => ({ source, generation, offset, result, after })) };
  }

  /** The next chunk in file order, or null when the lane has nothing more to read now. */
  async take(): Promise<ReadyChunk | null> {
    for (;;) {
      if (this.failure !== null) throw this.failure;
      const next = this.queue.shift();
      if (next !== undefined) {
        this.fill();
        return await next;
      }
      if (this.eof || this.closed) return null;
      this.fill();
      await this.producing;
    }
  }

  /** Bytes known to be waiting past what this lane has read. */
  get remaining(): number {
    return Math.max(0, this.size - this.readOffset);
  }

  get exhausted(): boolean {
    return this.eof && this.queue.length === 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.producing;
    await Promise.allSettled(this.queue);
    this.queue.length = 0;
    await this.handle.close();
  }
}
