// The context-events spool (docs/legacy-bridge-layout.md §5):
// `context-events/<YYYY-MM-DD>-<pid>.jsonl`, a header line
// `{"version":1,"format":"context-events"}`, then one event per line with
// kind (progress, report, approval), agent, optional job, session, project,
// payload and at. The file is conversation bridge:context:<file name> (kind
// progress); an event with a job is routed to bridge:job:<job> with the legacy
// key `<source>:event:bridge:job:<job>` and part `event:<kind>`. Every event's
// document carries its own kind, agent, job and session, also for the pieces
// of an event line longer than a chunk (the line's facts travel with its
// route, see RouteState).

import type { ChunkContext, LineFacts, ParseResult, ParseTask } from '../../../protocols/records.ts';
import { extractText } from '../../text/extract.ts';
import type { DecodedLine, LineDecoder } from '../../sources/jsonl.ts';
import { parseJsonlChunk } from '../../sources/jsonl.ts';
import type { FileSourceModule } from '../../sources/source-module.ts';
import type { SourcePlan } from '../../../protocols/sources.ts';
import { agentOf, contextConversation, jobConversation } from '../../keys/bridge.ts';

const SPOOL_FILE = /^[\w.-]+\.jsonl$/;
const EVENT_KINDS = new Set(['progress', 'report', 'approval']);
const SKIP = new Set(['kind', 'agent', 'job', 'session', 'project', 'at', 'version', 'format', 'id', 'pid', 'port', 'token']);

export const bridgeContextSource: FileSourceModule = {
  agent: 'other',
  roots: (paths) => [`${paths.bridgeHome}/context-events`],
  async classify(file): Promise<SourcePlan | null> {
    const name = file.relative[file.relative.length - 1] as string;
    if (file.relative.length !== 1 || !SPOOL_FILE.test(name)) return null;
    return {
      id: file.path,
      path: file.path,
      format: 'journal',
      ownAgentId: null,
      conversation: { id: contextConversation(name), agent: 'other', session: '', parent: null, kind: 'progress' },
    };
  },
};

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The facts and route of one event, from its parsed fields (or the ones found in a fragment's head). */
function eventOf(fields: Record<string, unknown>): { route: string | null; facts: LineFacts } | null {
  const kind = text(fields.kind);
  if (kind === null || !EVENT_KINDS.has(kind)) return null;
  const job = text(fields.job);
  const facts: LineFacts = {
    kind: kind as LineFacts['kind'],
    agent: agentOf(fields.agent),
    job,
    session: text(fields.session),
    event: job !== null,
  };
  return { route: job === null ? null : jobConversation(job), facts };
}

const HEAD_FIELDS = ['kind', 'agent', 'job', 'session'];

function headFields(head: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of HEAD_FIELDS) {
    const match = new RegExp(`"${key}"\\s*:\\s*("(?:\\\\.|[^"\\\\]){0,256}")`).exec(head);
    if (match === null) continue;
    try {
      fields[key] = JSON.parse(match[1] as string);
    } catch {
      // not a plain string: leave the field out
    }
  }
  return fields;
}

export const journalDecoder: LineDecoder = {
  decode(value): DecodedLine {
    const record = (value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
    const event = eventOf(record);
    const at = typeof record.at === 'number' && Number.isFinite(record.at) ? record.at : null;
    const base = { at, cwd: null, parent: null, links: [] };
    // The header line and unknown records: retained, indexed as they are (the header has no text).
    if (event === null) return { ...base, route: null, text: record.format === 'context-events' ? '' : extractText(record, { skipKeys: SKIP }) };
    return { ...base, route: event.route, text: extractText(record, { skipKeys: SKIP }), facts: event.facts };
  },
  routeFragment(head: string, _ctx: ChunkContext): string | null {
    return eventOf(headFields(head))?.route ?? null;
  },
  fragmentFacts(head: string): LineFacts | undefined {
    return eventOf(headFields(head))?.facts;
  },
};

export function parseJournalChunk(task: ParseTask): ParseResult {
  return parseJsonlChunk(task, journalDecoder);
}
