// Names of bridge records, kept exactly as the 0.29.17 ingestor wrote them
// (docs/legacy-bridge-layout.md §4.2, reference-implementation.md §7), so that
// capture continues from a migrated home's records and cursors without
// capturing anything twice:
//   source keys   messages:<id>:<recipient>   (part messages:<id>)
//                 decisions:<id>:<revision>   (part decisions:<id>)
//                 job-snapshot:<name>:<sha256 of the job JSON>
//   conversations bridge:<conversation_id>, bridge:decision:<topic>,
//                 bridge:job:<name>, bridge:run:<run>, bridge:approval:<file>,
//                 bridge:context:<file>
//   cursors       durable-envelope-keys, durable-decisions, durable-archive
//                 ({"after":N[,"offset":M]}), durable-job:<name>:<sha256> ("1")
// plus our own cursor for homes without envelope keys (v6): bridge-messages.

import type { Agent } from '../../protocols/records.ts';
import { AGENTS } from '../../protocols/records.ts';

export const CURSOR_ENVELOPES = 'durable-envelope-keys';
export const CURSOR_DECISIONS = 'durable-decisions';
export const CURSOR_ARCHIVE = 'durable-archive';
export const CURSOR_JOB_PREFIX = 'durable-job:';
/** Live `messages` rows by rowid, for a bridge.db without conversation_envelopes (0.29.10, v6). */
export const CURSOR_MESSAGES = 'bridge-messages';

export function messageSource(id: string, recipient: string): string {
  return `messages:${id}:${recipient}`;
}

/** The message id of an envelope record's source key (messageSource's inverse), else null. */
export function messageOfSource(source: string | null): string | null {
  if (source === null || !source.startsWith('messages:')) return null;
  const end = source.indexOf(':', 9);
  return end === -1 ? null : source.slice(9, end);
}

export function messagePart(id: string): string {
  return `messages:${id}`;
}

export function decisionSource(id: string, revision: number): string {
  return `decisions:${id}:${revision}`;
}

export function decisionPart(id: string): string {
  return `decisions:${id}`;
}

export function jobSnapshotSource(name: string, sha256: string): string {
  return `job-snapshot:${name}:${sha256}`;
}

export function jobMarker(name: string, sha256: string): string {
  return `${CURSOR_JOB_PREFIX}${name}:${sha256}`;
}

/** The legacy key of a bridge event routed to its job conversation. */
export function eventSource(source: string, conversation: string): string {
  return `${source}:event:${conversation}`;
}

export const messageConversation = (conversationId: string): string => `bridge:${conversationId}`;
export const decisionConversation = (topic: string): string => `bridge:decision:${topic}`;
export const jobConversation = (name: string): string => `bridge:job:${name}`;
/** The job a `bridge:job:<name>` conversation holds, else null. */
export const jobOfConversation = (conversation: string): string | null => (conversation.startsWith('bridge:job:') ? conversation.slice(11) : null);
export const runConversation = (run: string): string => `bridge:run:${run}`;
/** The run a `bridge:run:<run>` conversation holds (its documents' `run` column), else null. */
export const runOfConversation = (conversation: string): string | null => (conversation.startsWith('bridge:run:') ? conversation.slice(11) : null);
export const approvalConversation = (file: string): string => `bridge:approval:${file}`;
export const contextConversation = (file: string): string => `bridge:context:${file}`;

/** Source keys of records this module's provider writes (and derives documents for on reindex). */
const PROVIDER_SOURCE = /^(?:messages|decisions|job-snapshot):/;

export function isBridgeRowSource(source: string): boolean {
  return PROVIDER_SOURCE.test(source);
}

/** Job names as agent-bridge makes them (`<agent>-job-<id>`): a peer or sender with such a name is that job. */
export const JOB_NAME = /^(?:claude|codex|opencode)-job-[A-Za-z0-9_-]+$/;

export function jobNameIn(value: unknown): string | null {
  return typeof value === 'string' && JOB_NAME.test(value) ? value : null;
}

/** An agent kind as we index it; unknown kinds (antigravity, owner dashboards) are `other`. */
export function agentOf(value: unknown): Agent {
  return typeof value === 'string' && (AGENTS as readonly string[]).includes(value) ? (value as Agent) : 'other';
}

/** The agent a file name names (`-claude-`, `-codex-`, `-opencode-`), as the 0.29 indexer read it. */
export function agentInName(name: string): Agent {
  return agentOf(/-(claude|codex|opencode)-/.exec(name)?.[1]);
}
