// Reindex, worker side: one bounded step per scheduler turn.
//   reset    delete a slice of derived documents from before the reindex;
//   files    replay each file source's retained chunks, in offset order,
//            through the same parsers and commit code as capture;
//   others   records of no file source (provider rows, legacy bridge rows):
//            their provider derives the documents, or their text is indexed
//            as it is.
// Each step's documents and its progress commit together, so a reindex
// interrupted at any point resumes without losing or doubling documents.

import { HOLD_BACK_BYTES, HOLD_BACK_FORMATS, LINE_FORMATS, WHOLE_LINE_MAX, type LineFormat, type ParsedChunk, type ParseTask } from '../../protocols/records.ts';
import { LIMITS } from '../config/limits.ts';
import { cutByLimit } from '../sources/chunker.ts';
import { nextLineHead } from './line-head.ts';
import { CARRY_MAX, carryOf, fragmentText } from '../text/extract.ts';
import type { CommitChunk, FileSourceRow, HistoryAsk, ReindexProgress, RetainedRecord } from '../../protocols/history.ts';
import type { RecordProvider } from './provider.ts';
import type { RowBatch, RowDocument } from '../../protocols/rows.ts';

export interface ReindexPorts {
  readonly history: HistoryAsk;
  readonly parse: (task: ParseTask) => Promise<ParsedChunk>;
  readonly providers: readonly RecordProvider[];
  readonly resolveProject: (cwd: string) => Promise<string>;
}

const RESET_SLICE = 2000;
const FILE_RECORDS_PER_STEP = 16;
const OTHER_RECORDS_PER_STEP = 64;
const AGENT_FILE = /\/agent-([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.jsonl$/;

/** How a file source's records are parsed ('jsonl' rows come from the legacy ingestor). */
export function lineFormatOf(file: FileSourceRow): LineFormat {
  if ((LINE_FORMATS as readonly string[]).includes(file.format)) return file.format as LineFormat;
  // The 0.29.17 ingestor registered run logs and run metadata as 'jsonl'.
  if (file.conversation.startsWith('bridge:run:')) return /\.json(?:-\d+-[\w-]+)?$/.test(file.path) ? 'run-meta' : 'run-log';
  if (file.path.endsWith('.txt')) return 'text';
  if (file.conversation.startsWith('claude:')) return 'claude';
  if (file.conversation.startsWith('codex:')) return 'codex';
  return 'opaque';
}

function agentOf(conversation: string): 'claude' | 'codex' | 'opencode' | 'other' {
  const prefix = conversation.slice(0, conversation.indexOf(':'));
  return prefix === 'claude' || prefix === 'codex' || prefix === 'opencode' ? prefix : 'other';
}

/** The documents of a record no provider claims: its text as it is. */
export function plainDocuments(record: RetainedRecord): RowDocument[] {
  const text = fragmentText(Buffer.from(record.raw).toString('utf8'));
  return [{ text, offset: record.offset, line: record.offset }];
}

export class Reindexer {
  /** Documents derived again by this process's reindex steps. */
  documents = 0;
  /**
   * No reindex is in progress: found so once, and none begun since (only
   * this process's scheduler begins one, under the writer lock). Then a step
   * asks nothing: an ask waits behind the batch the writer thread commits.
   */
  private finished = false;
  /** Reindexes begun through this reindexer: with `idle`, what says the store's reindex state is as last read. */
  begins = 0;

  constructor(private readonly ports: ReindexPorts) {}

  /** A reindex was begun: the next step looks for its progress again. */
  begun(): void {
    this.finished = false;
    this.begins++;
  }

  /** No reindex is in progress, and none can start but through `begun` (its steps are this reindexer's). */
  get idle(): boolean {
    return this.finished;
  }

  /** One bounded step. Returns false when no reindex is in progress. */
  async step(): Promise<boolean> {
    if (this.finished) return false;
    const { history } = this.ports;
    const progress = history({ type: 'reindexProgress' });
    if (progress === null) {
      this.finished = true;
      return false;
    }
    if (progress.phase === 'reset') {
      const deleted = history({ type: 'resetStep', progress, limit: RESET_SLICE });
      if (deleted === 0) history({ type: 'saveReindex', progress: { ...progress, phase: 'rebuild' } });
      return true;
    }
    if (progress.stage === 'files') await this.fileStep(progress);
    else await this.otherStep(progress);
    return true;
  }

  private async fileStep(progress: ReindexProgress): Promise<void> {
    const { history } = this.ports;
    const file = progress.file;
    if (file === null) {
      const next = history({ type: 'nextFileSource', after: progress.source });
      const moved: ReindexProgress =
        next === undefined
          ? { ...progress, stage: 'others' }
          : { ...progress, source: next.id, file: next, generation: 0, offset: 0, route: null, lineStart: 0, at: null, facts: null, midLine: false, carry: '' };
      history({ type: 'saveReindex', progress: moved });
      return;
    }
    const records = history({
      type: 'recordsFrom',
      source: file.id,
      generation: progress.generation,
      offset: progress.offset,
      maxRecord: progress.maxRecord,
      limit: FILE_RECORDS_PER_STEP,
    });
    if (records.length === 0) {
      history({ type: 'saveReindex', progress: { ...progress, file: null } });
      return;
    }
    const format = lineFormatOf(file);
    const ownAgentId = format === 'claude' ? (AGENT_FILE.exec(file.path)?.[1] ?? null) : null;
    let generation = progress.generation;
    let midLine = progress.midLine;
    let carry = progress.carry;
    // The start of a line the previous step stopped inside, as capture keeps it (lane.ts), to index the line whole.
    const lineLength = progress.offset - progress.lineStart;
    let lineHead =
      midLine && lineLength > 0 && lineLength <= WHOLE_LINE_MAX
        ? history({ type: 'retainedBytes', source: file.id, generation: progress.generation, from: progress.lineStart, to: progress.offset })
        : null;
    const parsed: Array<Promise<CommitChunk>> = [];
    for (const record of records) {
      if (record.generation !== generation) {
        generation = record.generation;
        midLine = false;
        carry = '';
        lineHead = null;
      }
      const bytes = new Uint8Array(record.raw);
      const endsLine = bytes.length > 0 && bytes[bytes.length - 1] === 10;
      const task: ParseTask = {
        format,
        bytes,
        offset: record.offset,
        startsMidLine: midLine,
        carry,
        // As capture decided it: the line went on in bytes already on disk (not a half-written line).
        continues: cutByLimit(bytes, LIMITS.chunkBytes, HOLD_BACK_FORMATS.has(format) ? HOLD_BACK_BYTES : 0),
        ...(midLine && lineHead !== null ? { lineHead } : {}),
        // The conversation capture gave the record (a store written before sources kept their
        // registered conversation across a move may hold records of another one than the row's).
        context: { conversation: record.conversation, session: file.session, ownAgentId },
      };
      if (bytes.length > 0) lineHead = endsLine ? null : nextLineHead(midLine ? lineHead : null, midLine, bytes);
      midLine = bytes.length > 0 ? !endsLine : midLine;
      carry = endsLine ? '' : carryOf(bytes.subarray(Math.max(0, bytes.length - CARRY_MAX)));
      parsed.push(this.toChunk(task, file, record));
    }
    const chunks = await Promise.all(parsed);
    const last = records[records.length - 1] as RetainedRecord;
    const next: ReindexProgress = {
      ...progress,
      generation: last.generation,
      offset: last.offset + last.raw.length,
      midLine,
      carry,
      rebuilt: progress.rebuilt + records.length,
    };
    this.documents += history({ type: 'rebuild', chunks, rows: [], progress, next }).documents;
  }

  private async toChunk(task: ParseTask, file: FileSourceRow, record: RetainedRecord): Promise<CommitChunk> {
    const result = await this.ports.parse(task);
    return {
      source: file.id,
      conversation: record.conversation,
      generation: record.generation,
      offset: record.offset,
      bytes: result.bytes,
      segments: result.segments,
      texts: result.texts,
      hints: result.hints,
      project: result.hints.cwd === null ? null : await this.ports.resolveProject(result.hints.cwd),
      after: { identity: '', anchor: '', head: '', size: -1, mtimeMs: record.at },
    };
  }

  private async otherStep(progress: ReindexProgress): Promise<void> {
    const { history, providers } = this.ports;
    const records = history({ type: 'otherRecords', after: progress.afterRecord, maxRecord: progress.maxRecord, limit: OTHER_RECORDS_PER_STEP });
    if (records.length === 0) {
      history({ type: 'saveReindex', progress: null });
      return;
    }
    const batch: RowBatch = {
      provider: 'reindex',
      cursors: [],
      links: [],
      records: records.map((record) => ({
        source: record.source,
        generation: record.generation,
        offset: record.offset,
        conversation: { id: record.conversation, agent: agentOf(record.conversation), session: '', parent: null, kind: 'transcript' },
        project: null,
        at: record.at,
        raw: record.raw,
        part: record.part,
        documents: providers.find((p) => p.owns(record.source))?.documentsFor(record) ?? plainDocuments(record),
      })),
    };
    const last = records[records.length - 1] as RetainedRecord;
    const next = { ...progress, afterRecord: last.id, rebuilt: progress.rebuilt + records.length };
    this.documents += history({ type: 'rebuild', chunks: [], rows: [batch], progress, next }).documents;
  }
}
