// Commit requests made in the test, as the capture loop makes them: a
// registered Claude Code session file and chunks of whole lines of it, parsed
// by the parser actor, for tests that drive the writer directly.

import { parseChunk } from '../../actors/parser-actor.ts';
import { packTexts } from '../../protocols/segment-texts.ts';
import type { CommitChunk } from '../../protocols/history.ts';
import type { SourcePlan } from '../../protocols/sources.ts';
import { claudeLine } from './rollouts.ts';

/** A Claude Code session file under /capture (its path is its source id). */
export function claudePlan(session: string): SourcePlan {
  const path = `/capture/${session}.jsonl`;
  return { id: path, path, format: 'claude', ownAgentId: null, conversation: { id: `claude:${session}`, agent: 'claude', session, parent: null, kind: 'transcript' } };
}

/** One line of `plan`'s source at `offset`, with the project its bytes name (null: none). */
export function claudeLineChunk(plan: SourcePlan, offset: number, text: string, project: string | null = null): CommitChunk {
  const { session, id: conversation } = plan.conversation;
  const bytes = new TextEncoder().encode(claudeLine(session, text));
  const parsed = packTexts(parseChunk({ format: 'claude', bytes, offset, startsMidLine: false, carry: '', continues: false, context: { conversation, session, ownAgentId: null } }));
  return { source: plan.id, conversation, generation: 0, offset, bytes, segments: parsed.segments, texts: parsed.texts, hints: parsed.hints, project, after: { identity: 'test', anchor: '', head: '', size: offset + bytes.length, mtimeMs: 0 } };
}
