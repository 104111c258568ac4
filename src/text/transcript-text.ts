// The searchable text of one Claude Code or Codex transcript record: every
// string that is not metadata (extract.ts). It depends on the record alone
// (never on the file, the conversation or the line's position), which is
// what lets a store keep only the bytes and derive the text again when a
// reader needs it (span-text.ts). The format's metadata keys live here, with
// the one function both the decoders (src/sources) and the readers use.

import type { TextFormat } from '../../protocols/records.ts';
import { extractText } from './extract.ts';

const CLAUDE_SKIP_KEYS = new Set([
  'type', 'uuid', 'parentUuid', 'logicalParentUuid', 'sessionId', 'agentId', 'cwd', 'gitBranch', 'version',
  'timestamp', 'userType', 'entrypoint', 'slug', 'requestId', 'id', 'tool_use_id', 'toolUseID', 'signature',
  'model', 'stop_reason', 'stop_sequence', 'usage', 'role', 'promptId', 'permissionMode', 'messageId', 'leafUuid',
  'isSidechain', 'isMeta', 'isCompactSummary', 'isVisibleInTranscriptOnly', 'isSnapshotUpdate', 'trackedFileBackups',
  'sourceToolAssistantUUID', 'level', 'subtype', 'operation', 'compactMetadata', 'origin', 'teamName', 'caller',
  'media_type', 'is_error', 'interrupted', 'isImage', 'numLines', 'startLine', 'totalLines', 'totalDurationMs',
  'totalTokens', 'totalToolUseCount', 'durationMs', 'filePath', 'spawnDepth', 'agentType',
  // progress records (hook and agent progress): ids of the tool use they report on, the hook's event and name
  'parentToolUseID', 'hookEvent', 'hookName',
]);

const CODEX_SKIP_KEYS = new Set([
  'type', 'timestamp', 'id', 'call_id', 'turn_id', 'cwd', 'originator', 'cli_version', 'source', 'thread_source',
  'model_provider', 'model', 'encrypted_content', 'approval_policy', 'sandbox_policy', 'git', 'status', 'role',
  'phase', 'rate_limits', 'info', 'base_instructions', 'forked_from_id', 'agent_nickname', 'agent_role', 'agent_path',
  'effort', 'timezone', 'current_date', 'collaboration_mode', 'personality', 'permission_profile', 'namespace',
  'memory_mode', 'dynamic_tools', 'parent_thread_id', 'depth', 'event_id', 'agent_thread_id', 'kind', 'session_id',
  'started_at', 'completed_at', 'images', 'local_images',
]);

/** Codex records that are only metadata: nothing to index. */
const CODEX_METADATA_TYPES = new Set(['session_meta', 'turn_context']);

/** A parsed line as an object (anything else reads as an empty record). */
export function asRecord(value: unknown): Record<string, unknown> {
  return (value !== null && typeof value === 'object' ? value : {}) as Record<string, unknown>;
}

/** The searchable text of a parsed transcript line of `format`. */
export function transcriptText(format: TextFormat, value: unknown): string {
  const record = asRecord(value);
  if (format === 'claude') return extractText(record, { skipKeys: CLAUDE_SKIP_KEYS });
  const type = record.type;
  return typeof type === 'string' && CODEX_METADATA_TYPES.has(type) ? '' : extractText(record, { skipKeys: CODEX_SKIP_KEYS });
}
