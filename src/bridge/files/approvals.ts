// Approval requests (docs/legacy-bridge-layout.md §5): `approvals/<uuid>.json`
// (pending), `approvals/archive/<uuid>.json-<ms>-<uuid>` (completed) and,
// under `archive/`, any `*.json` / `*.json-*` whose path mentions approval.
// Each is one compact JSON line without a newline whose local capability
// (pid, port, token) comes last. The retained copy has the capability blanked
// (capability.ts) before any text is derived, so it never reaches the index;
// the file is only ever read. The format holds back the last KiB of a chunk
// that does not reach the end of the file, so the capability always arrives
// whole in the final chunk.
//
// Conversation bridge:approval:<file name>, kind approval; its agent and job
// are the request's (read from the head of the file when it is classified).

import { open } from 'node:fs/promises';
import type { ParseResult, ParseTask } from '../../../protocols/records.ts';
import { extractText } from '../../text/extract.ts';
import type { FileSourceModule } from '../../sources/source-module.ts';
import type { SourcePlan } from '../../../protocols/sources.ts';
import { agentOf, approvalConversation } from '../../keys/bridge.ts';
import { blankCapability } from './capability.ts';
import { documentChunk } from './document.ts';

const APPROVAL_FILE = /\.json(?:-\d+-[\w-]+)?$/;
const HEAD_BYTES = 4096;
const FIELD = (name: string): RegExp => new RegExp(`"${name}"\\s*:\\s*"((?:\\\\.|[^"\\\\]){1,256})"`);
const JOB_FIELD = FIELD('job');
const AGENT_FIELD = FIELD('agent');

async function head(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.toString('utf8', 0, bytesRead);
  } finally {
    await handle.close();
  }
}

function unquote(match: RegExpExecArray | null): string | null {
  if (match === null) return null;
  try {
    return JSON.parse(`"${match[1] as string}"`) as string;
  } catch {
    return null;
  }
}

/** Where approval files live: the whole approvals/ tree, and archive/ paths that mention approval. */
export function isApprovalPath(root: 'approvals' | 'archive', relative: readonly string[]): boolean {
  const name = relative[relative.length - 1] as string;
  if (!APPROVAL_FILE.test(name)) return false;
  return root === 'approvals' || relative.some((part) => /approval/i.test(part));
}

function module(root: 'approvals' | 'archive'): FileSourceModule {
  return {
    agent: 'other',
    roots: (paths) => [`${paths.bridgeHome}/${root}`],
    async classify(file): Promise<SourcePlan | null> {
      if (!isApprovalPath(root, file.relative)) return null;
      const text = await head(file.path);
      const name = file.relative[file.relative.length - 1] as string;
      return {
        id: file.path,
        path: file.path,
        format: 'approval',
        ownAgentId: null,
        conversation: {
          id: approvalConversation(name),
          agent: agentOf(unquote(AGENT_FIELD.exec(text))),
          session: '',
          parent: null,
          kind: 'approval',
          job: unquote(JOB_FIELD.exec(text)),
        },
      };
    },
  };
}

export const bridgeApprovalSource = module('approvals');
export const bridgeArchivedApprovalSource = module('archive');

/** Request fields that are not worth searching; the capability is blanked before this runs anyway. */
const SKIP = new Set(['id', 'askedAt', 'deadline', 'pid', 'port', 'token', 'version']);

/** An approval chunk: capability blanked in place, then indexed. */
export function parseApprovalChunk(task: ParseTask): ParseResult {
  blankCapability(task.bytes);
  return documentChunk(task, (doc) => ({
    text: extractText(doc, { skipKeys: SKIP }),
    at: typeof doc.askedAt === 'number' ? doc.askedAt : null,
    cwd: null,
  }));
}
