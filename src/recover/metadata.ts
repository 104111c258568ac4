// After salvage: make the recovered store consistent with the records it
// holds, so that capture can continue from it without losing or duplicating
// anything.
//   conversations  a record whose conversation row was lost gets one again,
//                  from its id (agent, session, native parent of a
//                  `:native:` child, bridge kinds); project and parent are
//                  learned again from the bytes by the reindex.
//   source rows    a retained file source whose row was lost is classified
//                  again by its module (the path is its id), reading its
//                  first line from the retained bytes.
//   cursors        never ahead of the salvaged records: a generation whose
//                  bytes are complete from 0 continues at their end (its
//                  anchor and head computed from the records, so capture
//                  verifies the file still holds them); a generation with a
//                  hole, or one that ends inside a line whose routing is
//                  lost, is closed: capture reads the file again as a new
//                  generation. The earlier generations stay, as they are.
//   capture times  kept from the damaged store where readable, else unknown.

import { isAbsolute } from 'node:path';
import { DOCUMENT_FORMATS, type LineFormat } from '../../protocols/records.ts';
import type { LostGeneration } from '../../protocols/recovery.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { fileSourceRoots, underRoots } from '../sources/file-modules.ts';
import { headerOf } from '../sources/header.ts';
import { HEAD_BYTES, ANCHOR_BYTES, anchorOf, sha256Hex } from '../sources/identity.ts';
import { ConversationIndex } from '../store/conversations.ts';
import { fillGenerations } from '../store/generations.ts';
import type { Db } from '../store/open.ts';
import type { ConversationSeed, SourceCursor, StoredSource } from '../../protocols/sources.ts';
import { EMPTY_CURSOR, SourceRows, loadSources } from '../store/source-rows.ts';
import { WRITER_CACHED_ROWS } from '../store/writer.ts';

/**
 * An identity and anchor no file can have (they are dev:ino:birthtime and
 * 64 hex digits): the cursor's generation is closed, and capture, seeing a
 * different file, starts the next one at offset 0.
 */
export const CLOSED_GENERATION = 'recover:closed';

/** A conversation row from the id alone (what the id encodes; the rest is learned again from the bytes). */
export function seedFromId(id: string): ConversationSeed {
  const [prefix = '', ...rest] = id.split(':');
  if (prefix === 'claude') {
    const session = rest[0] ?? '';
    return rest[1] === 'native' ? { id, agent: 'claude', session, parent: `claude:${session}`, kind: 'transcript' } : { id, agent: 'claude', session, parent: null, kind: 'transcript' };
  }
  if (prefix === 'codex' || prefix === 'opencode') return { id, agent: prefix, session: rest.join(':'), parent: null, kind: 'transcript' };
  if (prefix === 'bridge') {
    const [kind = '', ...name] = rest;
    const named = name.join(':');
    if (kind === 'job') return { id, agent: 'other', session: '', parent: null, kind: 'report', job: named };
    if (kind === 'decision') return { id, agent: 'other', session: '', parent: null, kind: 'decision' };
    if (kind === 'run') return { id, agent: 'other', session: '', parent: null, kind: 'run' };
    if (kind === 'approval') return { id, agent: 'other', session: '', parent: null, kind: 'approval' };
    if (kind === 'context') return { id, agent: 'other', session: '', parent: null, kind: 'progress' };
    return { id, agent: 'other', session: '', parent: null, kind: 'message' };
  }
  return { id, agent: 'other', session: '', parent: null, kind: 'transcript' };
}

export interface MetadataResult {
  conversations: number;
  sources: number;
  continued: number;
  newGeneration: number;
  /** The sources counted in newGeneration. */
  readonly newGenerationSources: string[];
  fromStart: number;
  readonly lostGenerations: LostGeneration[];
}

interface RecordSpan {
  readonly generation: number;
  readonly offset: number;
  readonly n: number;
  readonly at: number;
}

/** Sources that are copies of a file source's lines routed elsewhere, not files. */
const ROUTED_COPY = /:(?:inline|event):/;

export class MetadataRebuild {
  private readonly conversations: ConversationIndex;
  private readonly sourceRows: SourceRows;
  private readonly rawAt;
  private readonly spans;
  readonly result: MetadataResult = { conversations: 0, sources: 0, continued: 0, newGeneration: 0, newGenerationSources: [], fromStart: 0, lostGenerations: [] };

  constructor(
    private readonly db: Db,
    private readonly paths: HistoryPaths,
  ) {
    this.conversations = new ConversationIndex(db, WRITER_CACHED_ROWS);
    this.sourceRows = new SourceRows(db);
    this.rawAt = db.prepare('SELECT raw FROM conversation_records WHERE source = ? AND generation = ? AND offset = ?').pluck();
    this.spans = db.prepare('SELECT generation, offset, length(raw) AS n, at FROM conversation_records WHERE source = ? ORDER BY generation, offset');
  }

  async run(captureTimes: ReadonlyMap<string, readonly [number | null, number | null]>): Promise<MetadataResult> {
    this.db.transaction(() => this.conversationsOfRecords())();
    const plans = await this.lostSourceRows();
    this.db.transaction(() => {
      for (const plan of plans) {
        this.conversations.ensure(plan.conversation);
        if (this.sourceRows.register(plan)) this.result.sources++;
      }
      this.conversationsOfRecords();
      for (const source of loadSources(this.db)) this.cursorOf(source);
      this.captureTimes(captureTimes);
    })();
    return this.result;
  }

  private conversationsOfRecords(): void {
    const missing = this.db
      .prepare('SELECT DISTINCT conversation FROM conversation_records WHERE conversation NOT IN (SELECT id FROM conversations)')
      .pluck()
      .all() as string[];
    // Parents first, so a child made again finds the row its job comes from.
    for (const id of missing.sort((a, b) => a.length - b.length)) {
      this.conversations.ensure(seedFromId(id));
      this.result.conversations++;
    }
  }

  /** File sources that have records but no row: classified again by their modules. */
  private async lostSourceRows() {
    const sources = this.db
      .prepare('SELECT DISTINCT source FROM conversation_records WHERE source NOT IN (SELECT id FROM conversation_sources)')
      .pluck()
      .all() as string[];
    const firstGeneration = this.db.prepare('SELECT min(generation) FROM conversation_records WHERE source = ? AND offset = 0').pluck();
    const roots = fileSourceRoots(this.paths);
    const plans = [];
    for (const source of sources) {
      if (ROUTED_COPY.test(source) || !isAbsolute(source)) continue;
      const found = underRoots(roots, source);
      if (found === null) continue;
      const generation = firstGeneration.get(source) as number | null;
      const raw = generation === null ? null : (this.rawAt.get(source, generation, 0) as Buffer);
      const plan = await found.module.classify(found, async () => (raw === null ? null : headerOf(raw, false))).catch(() => null);
      if (plan !== null && plan.id === source) plans.push(plan);
    }
    return plans;
  }

  /** The bytes [from, to) of a generation, from its records (they tile it there). */
  private bytes(source: string, spans: readonly RecordSpan[], from: number, to: number): Buffer {
    const parts: Buffer[] = [];
    for (const span of spans) {
      if (span.offset + span.n <= from || span.offset >= to) continue;
      const raw = this.rawAt.get(source, span.generation, span.offset) as Buffer;
      parts.push(raw.subarray(Math.max(0, from - span.offset), Math.min(span.n, to - span.offset)));
    }
    return Buffer.concat(parts);
  }

  private cursorOf(source: StoredSource): void {
    const spans = this.spans.all(source.id) as RecordSpan[];
    const stored = source.cursor;
    const byGeneration = new Map<number, RecordSpan[]>();
    for (const span of spans) byGeneration.set(span.generation, [...(byGeneration.get(span.generation) ?? []), span]);
    // Holes in every generation, and a stored cursor beyond what was salvaged.
    let newestEnd = 0;
    let newestComplete = false;
    for (const [generation, list] of byGeneration) {
      const missing: Array<readonly [number, number]> = [];
      let end = 0;
      for (const span of list) {
        if (span.offset > end) missing.push([end, span.offset]);
        end = Math.max(end, span.offset + span.n);
      }
      const complete = missing.length === 0;
      if (generation === stored.generation && stored.offset > end) missing.push([end, stored.offset]);
      if (missing.length > 0) this.result.lostGenerations.push({ source: source.id, generation, missing });
      newestEnd = end;
      newestComplete = complete;
    }
    if (!byGeneration.has(stored.generation) && stored.generation > Math.max(-1, ...byGeneration.keys()) && stored.offset > 0) {
      this.result.lostGenerations.push({ source: source.id, generation: stored.generation, missing: [[0, stored.offset]] });
    }
    if (spans.length === 0) {
      this.sourceRows.saveCursor(source.id, { ...EMPTY_CURSOR, generation: stored.generation });
      this.result.fromStart++;
      return;
    }
    const newest = Math.max(...byGeneration.keys());
    const list = byGeneration.get(newest) as RecordSpan[];
    const last = list[list.length - 1] as RecordSpan;
    // A record boundary: a line's end, or the end of a one-document file (its bytes carry no newline).
    const endsLine = DOCUMENT_FORMATS.has(source.format as LineFormat) || this.bytes(source.id, list, newestEnd - 1, newestEnd)[0] === 10;
    const extras = this.db.prepare('SELECT 1 FROM history_cursors WHERE source = ?').get(`source:${source.id}`) !== undefined;
    const agrees = stored.generation === newest && stored.offset === newestEnd && extras;
    let cursor: SourceCursor;
    if (!newestComplete || (!endsLine && !agrees)) {
      // Identity and anchor no file has: the source is visited (its identity "changed") and a new generation starts.
      cursor = { ...EMPTY_CURSOR, generation: newest, offset: newestEnd, identity: CLOSED_GENERATION, anchor: CLOSED_GENERATION, at: last.at };
      this.result.newGeneration++;
      this.result.newGenerationSources.push(source.id);
    } else if (agrees) {
      cursor = stored;
      this.result.continued++;
    } else {
      const before = this.bytes(source.id, list, Math.max(0, newestEnd - ANCHOR_BYTES), newestEnd);
      cursor = {
        ...EMPTY_CURSOR,
        generation: newest,
        offset: newestEnd,
        identity: stored.generation === newest ? stored.identity : '',
        anchor: anchorOf(before, newestEnd),
        head: sha256Hex(this.bytes(source.id, list, 0, Math.min(newestEnd, HEAD_BYTES))),
        lineStart: newestEnd,
        at: last.at,
      };
      this.result.continued++;
    }
    this.sourceRows.saveCursor(source.id, cursor);
  }

  /** Generation rows for sources registered above, and the capture times the damaged store kept (else unknown). */
  private captureTimes(kept: ReadonlyMap<string, readonly [number | null, number | null]>): void {
    fillGenerations(this.db);
    const rows = this.db.prepare('SELECT source, generation FROM history_generations').all() as Array<{ source: string; generation: number }>;
    const update = this.db.prepare('UPDATE history_generations SET first_captured_at = ?, last_captured_at = ? WHERE source = ? AND generation = ?');
    for (const row of rows) {
      const [first, last] = kept.get(`${row.source}\u0000${row.generation}`) ?? [null, null];
      update.run(first, last, row.source, row.generation);
    }
  }
}
