// Claude Code transcripts (docs/formats.md §1).
//
// Layout under `<claude>/projects/<encoded cwd>/`:
//   <session>.jsonl                          main transcript      claude:<session>
//   <session>/subagents/agent-<id>.jsonl     native child         claude:<session>:native:<id>
//   <session>/subagents/agent-<id>.meta.json child's sidecar      (retained, not indexed)
//   <session>/tool-results/<tool use>.txt    persisted tool output, part of claude:<session>
//   agent-<id>.jsonl                         legacy sibling child (its session is in its records)
// Inline sidechain records (isSidechain + agentId) inside a transcript belong
// to the child conversation claude:<session>:native:<agentId>. The project
// comes from the records' cwd, never from the lossy directory name.

import type { ChunkContext, ParentLink } from '../../protocols/records.ts';
import { claudeConversation } from '../keys/claude.ts';
import { asRecord, transcriptText } from '../text/transcript-text.ts';
import type { DecodedLine, LineDecoder } from './jsonl.ts';
import { parseTimestamp } from './jsonl.ts';
import type { FileSourceModule } from './source-module.ts';
import type { SourcePlan } from '../../protocols/sources.ts';
import { SESSION_ID } from './source-module.ts';


const SIDECHAIN = /"isSidechain"\s*:\s*true/;
const AGENT_ID = /"agentId"\s*:\s*"([A-Za-z0-9_-]{1,128})"/;

function routeFor(isSidechain: boolean, agentId: unknown, ctx: ChunkContext): string | null {
  if (!isSidechain || typeof agentId !== 'string' || agentId === ctx.ownAgentId || !SESSION_ID.test(agentId)) return null;
  return claudeConversation(ctx.session, agentId);
}

/** A tool_result whose toolUseResult names an agent: that agent was spawned from this line's conversation. */
function spawnedAgent(record: Record<string, unknown>): string | null {
  const result = record.toolUseResult;
  if (result === null || typeof result !== 'object') return null;
  const agentId = (result as Record<string, unknown>).agentId;
  return typeof agentId === 'string' && SESSION_ID.test(agentId) ? agentId : null;
}

export const claudeDecoder: LineDecoder = {
  textFormat: 'claude',
  decode(value, ctx): DecodedLine {
    const record = asRecord(value);
    const route = routeFor(record.isSidechain === true, record.agentId, ctx);
    const links: ParentLink[] = [];
    const child = spawnedAgent(record);
    if (child !== null && child !== ctx.ownAgentId) {
      links.push({ child: claudeConversation(ctx.session, child), parent: route ?? ctx.conversation });
    }
    return {
      route,
      text: transcriptText('claude', record),
      at: parseTimestamp(record.timestamp),
      cwd: typeof record.cwd === 'string' && record.cwd !== '' ? record.cwd : null,
      parent: null,
      links,
    };
  },
  routeFragment(head, ctx) {
    return routeFor(SIDECHAIN.test(head), AGENT_ID.exec(head)?.[1], ctx);
  },
};

const SESSION_FILE = /^([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.jsonl$/;
const AGENT_FILE = /^agent-([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.jsonl$/;
const AGENT_META = /^agent-([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.meta\.json$/;

export const claudeSource: FileSourceModule = {
  agent: 'claude',
  roots: (paths) => paths.claudeRoots.map((root) => `${root}/projects`),
  async classify(file, readHeader): Promise<SourcePlan | null> {
    // parts relative to <claude>/projects: [projectDir, ...]
    const parts = file.relative;
    const name = parts[parts.length - 1] as string;
    const plan = (conversation: string, session: string, format: SourcePlan['format'], parent: string | null, ownAgentId: string | null): SourcePlan => ({
      id: file.path,
      path: file.path,
      format,
      ownAgentId,
      conversation: { id: conversation, agent: 'claude', session, parent, kind: 'transcript' },
    });
    if (parts.length === 2) {
      const main = SESSION_FILE.exec(name);
      const agent = AGENT_FILE.exec(name);
      if (agent !== null) {
        // Legacy sibling agent file: the parent session is named by its records.
        const header = await readHeader();
        const session = header?.sessionId;
        if (typeof session !== 'string' || !SESSION_ID.test(session)) return null;
        const agentId = agent[1] as string;
        return plan(claudeConversation(session, agentId), session, 'claude', claudeConversation(session), agentId);
      }
      if (main !== null) {
        const session = main[1] as string;
        return plan(claudeConversation(session), session, 'claude', null, null);
      }
      return null;
    }
    if (parts.length === 4) {
      const session = parts[1] as string;
      if (!SESSION_ID.test(session)) return null;
      if (parts[2] === 'subagents') {
        const agent = AGENT_FILE.exec(name);
        if (agent !== null) {
          const agentId = agent[1] as string;
          return plan(claudeConversation(session, agentId), session, 'claude', claudeConversation(session), agentId);
        }
        const meta = AGENT_META.exec(name);
        if (meta !== null) {
          const agentId = meta[1] as string;
          return plan(claudeConversation(session, agentId), session, 'opaque', claudeConversation(session), agentId);
        }
      }
      if (parts[2] === 'tool-results' && name.endsWith('.txt')) {
        return plan(claudeConversation(session), session, 'text', null, null);
      }
    }
    return null;
  },
};
