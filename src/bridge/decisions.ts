// Decision revisions (docs/legacy-bridge-layout.md §2): rows of `decisions`
// are never updated; a new revision of a topic is a new row whose
// `supersedes` names the previous one. Every revision is retained as its row
// (`SELECT rowid n, *`, the 0.29.17 shape) under decisions:<id>:<revision>,
// in conversation bridge:decision:<topic>.

import type { RowDocument } from '../../protocols/rows.ts';
import type { ConversationSeed } from '../../protocols/sources.ts';
import { agentOf, decisionConversation } from '../keys/bridge.ts';

export interface DecisionRow {
  readonly n: number;
  readonly revision: number;
  readonly id: string;
  readonly topic: string;
  readonly body: string;
  readonly scope: string;
  readonly author_id: string;
  readonly author_name: string;
  readonly author_agent: string;
  readonly created_at: number;
  readonly source_message_id: string | null;
  readonly supersedes: string | null;
  readonly [column: string]: unknown;
}

export function isDecisionRow(value: unknown): value is DecisionRow {
  const row = value as Partial<DecisionRow> | null;
  return row !== null && typeof row === 'object' && typeof row.id === 'string' && typeof row.topic === 'string' && typeof row.body === 'string';
}

export function decisionSeed(row: DecisionRow): ConversationSeed {
  return { id: decisionConversation(row.topic), agent: agentOf(row.author_agent), session: String(row.author_id ?? ''), parent: null, kind: 'decision' };
}

/** The project a decision is scoped to (`{"project": <path>}`), if any. */
export function decisionProject(row: DecisionRow): string | null {
  try {
    const scope = JSON.parse(row.scope) as unknown;
    const project = (scope as { project?: unknown } | null)?.project;
    return typeof project === 'string' && project !== '' ? project : null;
  } catch {
    return null;
  }
}

export function decisionDocument(row: DecisionRow): RowDocument {
  // `message` stays empty: search shows one hit per message id, and a decision is not its source message.
  return { text: `${row.topic}\n${row.body}`, offset: 0, line: 0, kind: 'decision', agent: agentOf(row.author_agent), session: String(row.author_id ?? '') };
}
