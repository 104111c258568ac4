// OpenCode's pre-1.2 JSON store (docs/formats.md §3.1), which upgraded users
// still have beside opencode.db: retained read-only as file sources, so
// sessions that exist only there stay searchable.
//   storage/session/<project>/<session>.json   the session (title, directory, parentID)
//   storage/message/<session>/<message>.json   a message of that session
//   storage/part/<message>/<part>.json         a part (its session is in the file)
//   storage/project/<project>.json             the project (retained, not indexed)
// Each file is one JSON document, usually pretty-printed: a file read in one
// chunk is parsed and indexed like the database row it was migrated into;
// a larger one is indexed chunk by chunk as text, all chunks one logical line.

import { open } from 'node:fs/promises';
import type { ParseResult, ParseTask, Segment } from '../../../protocols/records.ts';
import { fragmentText } from '../../text/extract.ts';
import type { FileSourceModule } from '../source-module.ts';
import type { SourcePlan } from '../../../protocols/sources.ts';
import { SESSION_ID } from '../source-module.ts';
import { opencodeConversation, type Table } from '../../keys/opencode.ts';
import { rowText, taskChild } from './text.ts';

const JSON_FILE = /^([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.json$/;
const SESSION_FIELD = /"sessionID"\s*:\s*"([^"]{1,128})"/;
const HEAD_BYTES = 4096;

async function sessionNamedIn(path: string): Promise<string | null> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    const session = SESSION_FIELD.exec(buffer.toString('utf8', 0, bytesRead))?.[1];
    return session !== undefined && SESSION_ID.test(session) ? session : null;
  } finally {
    await handle.close();
  }
}

function plan(path: string, session: string, conversation: string, format: SourcePlan['format']): SourcePlan {
  return { id: path, path, format, ownAgentId: null, conversation: { id: conversation, agent: 'opencode', session, parent: null, kind: 'transcript' } };
}

export const opencodeJsonSource: FileSourceModule = {
  agent: 'opencode',
  roots: (paths) => [`${paths.opencodeDataDir}/storage`],
  async classify(file): Promise<SourcePlan | null> {
    const [kind, ...rest] = file.relative;
    const name = JSON_FILE.exec(file.relative[file.relative.length - 1] as string)?.[1];
    if (name === undefined) return null;
    if (kind === 'project' && rest.length === 1) return plan(file.path, name, `opencode:project:${name}`, 'opaque');
    if (rest.length !== 2) return null;
    if (kind === 'session') return plan(file.path, name, opencodeConversation(name), 'opencode-json');
    if (kind === 'message') {
      const session = rest[0] as string;
      return SESSION_ID.test(session) ? plan(file.path, session, opencodeConversation(session), 'opencode-json') : null;
    }
    if (kind === 'part') {
      const session = await sessionNamedIn(file.path);
      return session === null ? null : plan(file.path, session, opencodeConversation(session), 'opencode-json');
    }
    return null;
  },
};

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** Which row a JSON store document was (its table in opencode.db). */
function tableOf(doc: Record<string, unknown>): Table {
  if (typeof doc.messageID === 'string') return 'part';
  if (typeof doc.role === 'string') return 'message';
  return 'session';
}

function timeOf(doc: Record<string, unknown>): number | null {
  const time = record(doc.time);
  const value = time?.updated ?? time?.completed ?? time?.created ?? time?.end ?? time?.start;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function cwdOf(doc: Record<string, unknown>): string | null {
  if (typeof doc.directory === 'string' && doc.directory !== '') return doc.directory;
  const cwd = record(doc.path)?.cwd;
  return typeof cwd === 'string' && cwd !== '' ? cwd : null;
}

export function parseOpencodeJsonChunk(task: ParseTask): ParseResult {
  const bytes = task.bytes;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const none = { cwd: null, parent: null, links: [], malformed: 0 };
  if (bytes.length === 0) return { bytes, segments: [], hints: none };
  let doc: Record<string, unknown> | null = null;
  if (task.offset === 0) {
    try {
      doc = record(JSON.parse(text));
    } catch {
      doc = null; // a document larger than one chunk: indexed as text below
    }
  }
  // Every chunk of a file continues the file's one logical line (document grouping).
  const segment: Omit<Segment, 'text' | 'at'> = { offset: task.offset, length: bytes.length, continuation: task.offset > 0, route: null, complete: false };
  if (doc === null) return { bytes, segments: [{ ...segment, text: fragmentText(task.carry + text), at: null }], hints: none };
  const table = tableOf(doc);
  const parentId = table === 'session' && typeof doc.parentID === 'string' && SESSION_ID.test(doc.parentID) ? doc.parentID : null;
  const child = table === 'part' ? taskChild(doc) : null;
  return {
    bytes,
    segments: [{ ...segment, text: rowText(table, doc), at: timeOf(doc) }],
    hints: {
      cwd: cwdOf(doc),
      parent: parentId === null ? null : opencodeConversation(parentId),
      links: child === null ? [] : [{ child: opencodeConversation(child), parent: task.context.conversation }],
      malformed: 0,
    },
  };
}
