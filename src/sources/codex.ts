// Codex CLI rollouts (docs/formats.md §2).
//
// `<codex>/sessions/YYYY/MM/DD/rollout-<time>-<thread uuid>.jsonl` and the
// flat `<codex>/archived_sessions/`. The thread id comes from the file name:
// a forked rollout starts with its ancestors' session_meta lines, so only the
// first line is canonical. A native parent comes only from explicit
// `source.subagent.thread_spawn.parent_thread_id` metadata on that first
// line; `forked_from_id` alone is an ordinary fork, not a child. Inherited
// records present in a rollout are its bytes and are retained like any other.

import { codexConversation } from '../keys/codex.ts';
import { asRecord, transcriptText } from '../text/transcript-text.ts';
import type { DecodedLine, LineDecoder } from './jsonl.ts';
import { parseTimestamp } from './jsonl.ts';
import type { FileSourceModule } from './source-module.ts';
import type { SourcePlan } from '../../protocols/sources.ts';
import { SESSION_ID } from './source-module.ts';

const ROLLOUT = /^rollout-.*?([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl(\.zst)?$/;


function parentThread(payload: Record<string, unknown>): string | null {
  const source = payload.source;
  if (source === null || typeof source !== 'object') return null;
  const subagent = (source as Record<string, unknown>).subagent;
  if (subagent === null || typeof subagent !== 'object') return null;
  const spawn = (subagent as Record<string, unknown>).thread_spawn;
  if (spawn === null || typeof spawn !== 'object') return null;
  const parent = (spawn as Record<string, unknown>).parent_thread_id;
  return typeof parent === 'string' && SESSION_ID.test(parent) ? parent.toLowerCase() : null;
}

export const codexDecoder: LineDecoder = {
  textFormat: 'codex',
  decode(value, ctx, first): DecodedLine {
    const record = asRecord(value);
    const payload = (record.payload !== null && typeof record.payload === 'object' ? record.payload : {}) as Record<string, unknown>;
    const type = record.type;
    let cwd: string | null = null;
    let parent: string | null = null;
    if (type === 'session_meta' && first) {
      // Only the rollout's own (first) session_meta names its cwd and parent.
      if (typeof payload.cwd === 'string' && payload.cwd !== '') cwd = payload.cwd;
      const thread = parentThread(payload);
      if (thread !== null) parent = codexConversation(thread);
    }
    return {
      route: null,
      text: transcriptText('codex', record),
      at: parseTimestamp(record.timestamp),
      cwd,
      parent,
      links: [],
    };
  },
  routeFragment() {
    return null;
  },
};

export const codexSource: FileSourceModule = {
  agent: 'codex',
  roots: (paths) => paths.codexRoots.flatMap((root) => [`${root}/sessions`, `${root}/archived_sessions`]),
  async classify(file): Promise<SourcePlan | null> {
    const name = file.relative[file.relative.length - 1] as string;
    const match = ROLLOUT.exec(name);
    if (match === null) return null;
    const thread = (match[1] as string).toLowerCase();
    return {
      id: file.path,
      path: file.path,
      // Compressed archived rollouts are retained byte-exactly; Node 20 has no zstd decoder.
      format: match[2] === undefined ? 'codex' : 'opaque',
      ownAgentId: null,
      conversation: { id: codexConversation(thread), agent: 'codex', session: thread, parent: null, kind: 'transcript' },
    };
  },
};
