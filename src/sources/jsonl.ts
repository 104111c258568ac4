// Splitting a JSONL chunk into segments (lines and line fragments) and
// decoding each through a format's LineDecoder. Pure: bytes in, segments out.
//
// A chunk is cut after its last newline by the reader, so it holds whole
// lines, except that (a) its first segment may continue a line that began in
// an earlier chunk (task.startsMidLine) and (b) its last segment may begin a
// line that continues past the chunk (a line longer than a chunk, or the
// unfinished last line of a file). Such fragments cannot be parsed as JSON;
// their bytes are indexed as text, with escapes decoded, so the tail of a
// 100 MB line stays findable. Two exceptions keep a line's metadata out of
// the index: the first part of a line (half-written, or longer than a chunk)
// is decoded as far as its JSON goes (partial-json.ts), and the rest of a
// line whose first part is at hand (task.lineHead) is decoded whole.

import type { ChunkContext, LineFacts, ParentLink, ParseResult, ParseTask, Segment, TextFormat, TextReach, TextRecipe } from '../../protocols/records.ts';
import { withoutControls } from '../text/controls.ts';
import { withoutTrailingToken } from '../text/extract.ts';
import { partialJson } from '../text/partial-json.ts';
import { segmentText } from '../text/span-text.ts';

export interface DecodedLine {
  /** Conversation id, or null for the file's own conversation. */
  readonly route: string | null;
  readonly text: string;
  readonly at: number | null;
  readonly cwd: string | null;
  /** The file's own native parent (only honoured on the file's first line). */
  readonly parent: string | null;
  readonly links: readonly ParentLink[];
  /** Facts of the line that differ from its conversation's (bridge context events). */
  readonly facts?: LineFacts;
}

export interface LineDecoder {
  /**
   * Set when the decoded text is transcriptText(textFormat, record): then a
   * segment's text derives from its bytes alone (Segment.recipe).
   */
  readonly textFormat?: TextFormat;
  /** Decode one complete, parsed line. `first` is true for the file's first line. */
  decode(record: unknown, ctx: ChunkContext, first: boolean): DecodedLine;
  /** Route a line that cannot be parsed, from the head of its text. */
  routeFragment(head: string, ctx: ChunkContext): string | null;
  /** Facts of a line that cannot be parsed, from the head of its text. */
  fragmentFacts?(head: string, ctx: ChunkContext): LineFacts | undefined;
}

/** How much of an unparseable line is searched for routing keys. */
const ROUTING_HEAD = 8192;
const ROUTING_TAIL = 2048;
const TIMESTAMP = /"timestamp"\s*:\s*"([^"]{10,40})"/;

export function timestampFrom(text: string): number | null {
  const match = TIMESTAMP.exec(text);
  if (match === null) return null;
  const ms = Date.parse(match[1] as string);
  return Number.isFinite(ms) ? ms : null;
}

export function parseTimestamp(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

export function parseJsonlChunk(task: ParseTask, decoder: LineDecoder): ParseResult {
  const bytes = task.bytes;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const segments: Segment[] = [];
  const links: ParentLink[] = [];
  let cwd: string | null = null;
  let parent: string | null = null;
  let malformed = 0;
  let pos = 0;

  while (pos < buf.length) {
    const newline = buf.indexOf(10, pos);
    const complete = newline !== -1;
    const end = complete ? newline + 1 : buf.length;
    const line = buf.toString('utf8', pos, complete ? newline : end);
    const offset = task.offset + pos;
    const continuation = pos === 0 && task.startsMidLine;

    let route: string | null = null;
    let decodedText: string | null = null;
    // Text read further than the segment as it stands (a line decoded whole with its start, the first part of
    // a line decoded as far as its JSON goes), and how far (TextRecipe.reach).
    let readText: string | null = null;
    let reach: TextReach | undefined;
    let at: number | null = null;
    let facts: LineFacts | undefined;
    const whole = continuation && complete && task.lineHead !== undefined ? decodeWhole(task, buf.subarray(pos, newline), decoder) : null;
    if (whole !== null) {
      // The rest of a line whose start is at hand: the whole line, decoded (its route stays the one its start had).
      readText = whole.text;
      reach = 'whole';
      at = whole.at ?? timestampFrom(line.slice(-ROUTING_TAIL));
      if (cwd === null) cwd = whole.cwd;
      if (task.offset - (task.lineHead as Uint8Array).length === 0 && whole.parent !== null) parent = whole.parent;
      links.push(...whole.links);
    } else if (continuation) {
      // The rest of a line that began in an earlier chunk.
      if (complete) at = timestampFrom(line.slice(-ROUTING_TAIL));
    } else {
      let decoded: DecodedLine | null = null;
      if (complete) {
        try {
          decoded = decoder.decode(JSON.parse(line), task.context, offset === 0);
        } catch {
          malformed++;
        }
      }
      if (decoded !== null) {
        route = decoded.route;
        decodedText = decoded.text;
        at = decoded.at;
        facts = decoded.facts;
        if (cwd === null) cwd = decoded.cwd;
        if (offset === 0 && decoded.parent !== null) parent = decoded.parent;
        links.push(...decoded.links);
      } else {
        // A malformed line, or the head of a line that continues past this chunk.
        const head = line.slice(0, ROUTING_HEAD);
        route = decoder.routeFragment(head, task.context);
        facts = decoder.fragmentFacts?.(head, task.context);
        readText = complete ? null : partialText(line, task, decoder);
        if (readText !== null) reach = 'head';
        at = timestampFrom(head);
      }
    }
    // A whole line's text is its decoded JSON, with nothing carried and nothing left to a later chunk.
    const cut = reach === 'whole' ? { carry: null, trimmed: false } : { carry: continuation ? task.carry : null, trimmed: !complete && task.continues };
    const text = readText === null ? segmentText(line, decodedText, cut) : cut.trimmed ? withoutTrailingToken(readText) : readText;
    const segment: Segment = { offset, length: end - pos, continuation, route, text, at, complete };
    const recipe: TextRecipe | undefined = decoder.textFormat === undefined ? undefined : { format: decoder.textFormat, ...cut, ...(reach === undefined ? {} : { reach }) };
    const lineStart = reach === 'whole' ? task.offset - (task.lineHead as Uint8Array).length : undefined;
    segments.push({
      ...segment,
      ...(facts === undefined ? {} : { facts }),
      ...(recipe === undefined ? {} : { recipe }),
      ...(lineStart === undefined ? {} : { lineStart }),
    });
    pos = end;
  }

  return { bytes, segments, hints: { cwd, parent, links, malformed } };
}

/** The human text of the first part of a line, decoded as far as its JSON goes; null when it is not JSON. */
function partialText(line: string, task: ParseTask, decoder: LineDecoder): string | null {
  const value = partialJson(line);
  if (value === undefined || value === null || typeof value !== 'object') return null;
  try {
    return decoder.decode(value, task.context, false).text;
  } catch {
    return null;
  }
}

/** A line completed in this chunk, decoded with its start (task.lineHead); null when the whole is not valid JSON. */
function decodeWhole(task: ParseTask, rest: Buffer, decoder: LineDecoder): DecodedLine | null {
  const head = task.lineHead as Uint8Array;
  try {
    const text = Buffer.concat([head, rest]).toString('utf8');
    return decoder.decode(JSON.parse(text), task.context, task.offset === head.length);
  } catch {
    return null;
  }
}

const NO_HINTS = { cwd: null, parent: null, links: [], malformed: 0 } as const;

/** A plain-text chunk (persisted tool output): one segment of the file's conversation. */
export function parseTextChunk(task: ParseTask): ParseResult {
  const buf = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength);
  if (buf.length === 0) return { bytes: task.bytes, segments: [], hints: NO_HINTS };
  const complete = buf[buf.length - 1] === 10;
  const text = withoutControls(task.carry + buf.toString('utf8'));
  const segment: Segment = {
    offset: task.offset,
    length: buf.length,
    continuation: false,
    route: null,
    text: !complete && task.continues ? withoutTrailingToken(text) : text,
    at: null,
    complete,
  };
  return { bytes: task.bytes, segments: [segment], hints: NO_HINTS };
}

/** Bytes retained but not indexed. */
export function parseOpaqueChunk(task: ParseTask): ParseResult {
  return { bytes: task.bytes, segments: [], hints: NO_HINTS };
}
