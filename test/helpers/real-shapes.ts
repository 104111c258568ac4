// A deterministic home holding the record shapes real Claude Code and Codex
// CLIs write (docs/formats.md §1, §2), beyond what the shared fixtures cover:
// queue operations, hook and agent progress, snapshots and summaries in the
// middle of a file, system subtypes, thinking with signatures, string and
// object toolUseResult, a first record of another session, a first parent
// outside the file, mixed CLI versions, subagent ids of 7, 8 and 17 hex
// digits and acompact-<hex> agents in the nested and the flat layout,
// timestamps out of order, duplicated lines, ANSI escapes and control
// characters; Codex turn_aborted, web search, apply_patch with
// patch_apply_end, exec_command_end, agent_reasoning, dynamic_tools,
// rollouts without turn_context / token_count / agent_message, calls without
// output, an IDE context preamble, a local-time date folder; and a Claude
// file holding only snapshots and summaries.
//
// Every distinctive word is planted by this generator together with the
// conversation its line belongs to (by the specification's rules, decided
// here, never by the code under test): `searchable` words must be found in
// exactly those conversations and lines, `metadata` words must not be found.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { prng } from './home.ts';

export interface ShapesManifest {
  /** Every file written, relative to the home, with its exact bytes. */
  readonly files: Array<{ readonly path: string; readonly bytes: Buffer }>;
  /** word → conversation → number of lines holding it. */
  readonly searchable: Record<string, Record<string, number>>;
  /** Words planted only in metadata fields: never found. */
  readonly metadata: readonly string[];
  /** conversation → expected native parent (null: a root). */
  readonly parents: Record<string, string | null>;
  /** conversation → expected project ('' when the bytes name none). */
  readonly projects: Record<string, string>;
  /** Conversations that must not exist (a session id named only inside another session's file). */
  readonly absent: readonly string[];
  /** Notable ids and paths, for individual assertions. */
  readonly ids: {
    readonly main: string;
    readonly otherFirst: string;
    readonly otherNamed: string;
    readonly legacy: string;
    readonly snapshotOnly: string;
    readonly codexFull: string;
    readonly codexBare: string;
    readonly codexFullPath: string;
    readonly duplicateWord: string;
    readonly lateLineWord: string;
    readonly lateLineAt: string;
  };
}

export const CLAUDE_CWD = '/work/shapes-app';
export const CODEX_CWD = '/work/shapes-codex';

/** Planted words: searchable ones (human or tool text) and metadata ones. */
class Planter {
  readonly words = new Set<string>();
  readonly metadata = new Set<string>();

  text(word: string): string {
    this.words.add(word);
    return word;
  }

  meta(word: string): string {
    this.metadata.add(word);
    return word;
  }
}

export function writeShapesHome(home: string, seed = 20261201): ShapesManifest {
  const rnd = prng(seed);
  const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join('');
  const uuid = (): string => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  const uuid7 = (): string => `019e${hex(4)}-${hex(4)}-7${hex(3)}-8${hex(3)}-${hex(12)}`;
  const b64 = (n: number): string => {
    const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    return Array.from({ length: n }, () => chars[Math.floor(rnd() * 64)]).join('');
  };
  const p = new Planter();
  const files: Array<{ path: string; bytes: Buffer }> = [];
  const searchable: Record<string, Record<string, number>> = {};
  /** Write a JSONL file; `owner` names the conversation of each line (by the specification's rules). */
  const write = (path: string, lines: readonly unknown[] | string, owner: string | ((index: number) => string) = ''): void => {
    const texts = typeof lines === 'string' ? [lines] : lines.map((l) => `${typeof l === 'string' ? l : JSON.stringify(l)}\n`);
    const bytes = Buffer.from(texts.join(''), 'utf8');
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), bytes);
    files.push({ path, bytes });
    if (typeof lines === 'string') return; // not a transcript
    texts.forEach((text, index) => {
      const conversation = typeof owner === 'string' ? owner : owner(index);
      for (const word of p.words) {
        if (!text.includes(word)) continue;
        const byConversation = (searchable[word] ??= {});
        byConversation[conversation] = (byConversation[conversation] ?? 0) + 1;
      }
    });
  };
  const at = (minute: number, second = 0): string => new Date(Date.UTC(2026, 2, 14, 9, minute, second, 123)).toISOString();

  const projectDir = '.claude/projects/-work-shapes-app';
  const main = uuid();
  const otherFirst = uuid(); // the session named by S2's first record only
  const otherNamed = uuid(); // S2's file name
  const legacy = uuid();
  const snapshotOnly = uuid();
  const C = (session: string, agent?: string): string => (agent === undefined ? `claude:${session}` : `claude:${session}:native:${agent}`);
  const conv = C(main);
  const parents: Record<string, string | null> = {};
  const projects: Record<string, string> = {};

  const envelope = (session: string, version: string, extra: Record<string, unknown> = {}) => ({
    parentUuid: null as string | null,
    isSidechain: false,
    userType: 'external',
    cwd: CLAUDE_CWD,
    sessionId: session,
    version,
    gitBranch: `feature/${p.meta('gitbranchmetaword')}`,
    slug: p.meta('slugmetaword'),
    ...extra,
  });

  // ---- Claude main transcript, 2.1.x layout, mixed versions -----------------
  const agent17 = `a${hex(16)}`;
  const agentCompact = `acompact-${hex(6)}`;
  const toolTask = `toolu_${b64(24).replace(/[+/]/g, 'x')}`;
  const toolBash = `toolu_${b64(24).replace(/[+/]/g, 'y')}`;
  const toolRead = `toolu_${b64(24).replace(/[+/]/g, 'z')}`;
  const u = Array.from({ length: 30 }, () => uuid());
  const msgId = `msg_01${p.meta('messageidmetaword')}`;
  const mainLines: unknown[] = [
    // A snapshot first, as 2.1.x writes it: file paths and backup names are metadata.
    {
      type: 'file-history-snapshot',
      messageId: u[0],
      snapshot: { messageId: u[0], trackedFileBackups: { [`${CLAUDE_CWD}/src/${p.meta('trackedfilemetaword')}.ts`]: { backupFileName: `${p.meta('backupnamemetaword')}@v1`, version: 1, backupTime: at(0) } }, timestamp: at(0) },
      isSnapshotUpdate: false,
    },
    { type: 'queue-operation', operation: 'enqueue', timestamp: at(0, 1), sessionId: main, content: `please also ${p.text('queuedsteerword')} the cache` },
    { type: 'queue-operation', operation: 'dequeue', timestamp: at(0, 2), sessionId: main },
    // The first message's parent is a record of an earlier file (a resumed session).
    { ...envelope(main, '2.0.76', { parentUuid: u[29], promptId: p.meta('promptidmetaword') }), type: 'user', message: { role: 'user', content: `Fix the ${p.text('firstpromptword')} in the booking flow` }, uuid: u[1], timestamp: at(1), permissionMode: 'default' },
    {
      ...envelope(main, '2.1.30', { parentUuid: u[1] }),
      type: 'progress',
      data: { type: 'hook_progress', hookEvent: 'PreToolUse', hookName: `PreToolUse:${p.meta('hooknamemetaword')}`, command: `~/.claude/hooks/${p.text('hookcommandword')}.sh` },
      parentToolUseID: `toolu_${p.meta('parenttoolmetaword')}`,
      toolUseID: `toolu_${p.meta('tooluseidmetaword')}`,
      uuid: u[2],
      timestamp: at(1, 5),
    },
    {
      ...envelope(main, '2.1.101', { parentUuid: u[2] }),
      type: 'assistant',
      message: { model: `claude-${p.meta('modelmetaword')}`, id: msgId, type: 'message', role: 'assistant', content: [{ type: 'thinking', thinking: `Let me ${p.text('thinkingword')} about the ledger first.`, signature: `Eq${p.meta('signaturemetaword')}${b64(300)}` }], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 4 } },
      requestId: `req_${p.meta('requestidmetaword')}`,
      uuid: u[3],
      timestamp: at(1, 10),
    },
    {
      ...envelope(main, '2.1.101', { parentUuid: u[3] }),
      type: 'assistant',
      message: { model: 'claude-opus', id: msgId, type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: toolBash, name: 'Bash', input: { command: `grep -rn ${p.text('bashinputword')} src/`, description: 'search' } }], stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 9 } },
      requestId: 'req_011',
      uuid: u[4],
      timestamp: at(1, 11),
    },
    {
      ...envelope(main, '2.1.101', { parentUuid: u[4] }),
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolBash, content: `src/a.ts:3: ${p.text('bashoutputword')}`, is_error: false }] },
      toolUseResult: { stdout: `src/a.ts:3: bashoutputword`, stderr: '', interrupted: false, isImage: false },
      sourceToolAssistantUUID: u[4],
      uuid: u[5],
      timestamp: at(1, 12),
    },
    // ANSI colour codes and control characters inside JSON strings (escaped, as JSON.stringify writes them).
    {
      ...envelope(main, '2.1.101', { parentUuid: u[5] }),
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolRead, content: `\u001b[31m${p.text('ansiredword')}\u001b[0m failed\u0007 \u001b[1;32m${p.text('ansigreenword')}\u001b[22m\r\n\u0000${p.text('controlcharword')}\u001b]0;${p.text('osctitleword')}\u0007` }] },
      toolUseResult: `\u001b[31mansiredword\u001b[0m failed`,
      uuid: u[6],
      timestamp: at(1, 13),
    },
    // toolUseResult as a plain string (an error).
    {
      ...envelope(main, '2.1.101', { parentUuid: u[6] }),
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolRead, content: `Error: ${p.text('stringresultword')} does not exist`, is_error: true }] },
      toolUseResult: 'Error: stringresultword does not exist',
      uuid: u[7],
      timestamp: at(1, 14),
    },
    // A summary in the middle of the file.
    { type: 'summary', summary: `Ledger ${p.text('midsummaryword')} repair`, leafUuid: u[7] },
    { ...envelope(main, '2.1.101', { parentUuid: u[7] }), type: 'system', subtype: 'api_error', level: 'error', error: { status: 529, error: { type: 'overloaded_error', message: `Overloaded ${p.text('apierrorword')}` } }, retryInMs: 1200, retryAttempt: 1, maxRetries: 10, uuid: u[8], timestamp: at(2) },
    { ...envelope(main, '2.1.101', { parentUuid: u[8] }), type: 'system', subtype: 'turn_duration', durationMs: 48211, isMeta: false, uuid: u[9], timestamp: at(2, 1) },
    {
      ...envelope(main, '2.1.101', { parentUuid: u[9] }),
      type: 'system',
      subtype: 'stop_hook_summary',
      hookCount: 1,
      hookInfos: [{ command: `~/.claude/hooks/${p.text('stophookword')}.sh` }],
      hookErrors: [],
      preventedContinuation: false,
      stopReason: '',
      hasOutput: false,
      level: 'suggestion',
      toolUseID: 'toolu_stop',
      uuid: u[10],
      timestamp: at(2, 2),
    },
    // A snapshot update in the middle.
    { type: 'file-history-snapshot', messageId: u[10], snapshot: { messageId: u[10], trackedFileBackups: { [`${CLAUDE_CWD}/src/trackedfilemetaword.ts`]: { backupFileName: 'backupnamemetaword@v2', version: 2, backupTime: at(2, 3) } }, timestamp: at(2, 3) }, isSnapshotUpdate: true },
    // Agent spawn: the child's id is named by toolUseResult.agentId.
    {
      ...envelope(main, '2.1.101', { parentUuid: u[10] }),
      type: 'assistant',
      message: { model: 'claude-opus', id: 'msg_02', type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: toolTask, name: 'Agent', input: { description: 'audit', prompt: `Audit the ${p.text('spawnpromptword')} module`, subagent_type: 'general-purpose' } }], stop_reason: 'tool_use', stop_sequence: null, usage: {} },
      uuid: u[11],
      timestamp: at(3),
    },
    {
      ...envelope(main, '2.1.101', { parentUuid: u[11] }),
      type: 'progress',
      data: { type: 'agent_progress', message: { type: 'user', message: { role: 'user', content: [{ type: 'text', text: `child says ${p.text('agentprogressword')}` }] }, uuid: u[12], timestamp: at(3, 1) }, normalizedMessages: [], prompt: 'Audit the spawnpromptword module', agentId: agent17 },
      toolUseID: toolTask,
      parentToolUseID: toolTask,
      uuid: u[13],
      timestamp: at(3, 1),
    },
    {
      ...envelope(main, '2.1.101', { parentUuid: u[13] }),
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolTask, content: [{ type: 'text', text: `Audit done: ${p.text('agentresultword')}` }] }] },
      toolUseResult: { status: 'completed', prompt: 'Audit the spawnpromptword module', agentId: agent17, agentType: 'general-purpose', content: [{ type: 'text', text: 'Audit done: agentresultword' }], totalDurationMs: 5000, totalTokens: 900, totalToolUseCount: 2, usage: {} },
      uuid: u[14],
      timestamp: at(3, 30),
    },
    { ...envelope(main, '2.1.101', { parentUuid: u[14], logicalParentUuid: u[14] }), parentUuid: null, type: 'system', subtype: 'compact_boundary', content: `Conversation ${p.text('compactboundaryword')}`, level: 'info', compactMetadata: { trigger: 'auto', preTokens: 155000 }, uuid: u[15], timestamp: at(4) },
    { ...envelope(main, '2.1.101', { parentUuid: u[15] }), type: 'user', isCompactSummary: true, isVisibleInTranscriptOnly: true, message: { role: 'user', content: `This session is being continued. Summary: ${p.text('compactsummaryword')}.` }, uuid: u[16], timestamp: at(4, 1) },
    // Timestamps out of order: this line says 08:00, before everything above.
    { ...envelope(main, '2.1.101', { parentUuid: u[16] }), type: 'user', message: { role: 'user', content: `late line ${p.text('latelineword')}` }, uuid: u[17], timestamp: '2026-03-14T08:00:00.000Z' },
  ];
  // The same line twice (a resumed CLI rewriting its last record): both copies are retained and found.
  const duplicate = { ...envelope(main, '2.1.101', { parentUuid: u[17] }), type: 'user', message: { role: 'user', content: `twice ${p.text('duplicatelineword')}` }, uuid: u[18], timestamp: at(5) };
  mainLines.push(duplicate, duplicate);
  write(`${projectDir}/${main}.jsonl`, mainLines, conv);
  parents[conv] = null;
  projects[conv] = CLAUDE_CWD;

  // Nested subagents/ layout: a 17-hex agent (with its sidecar) and a compaction agent.
  const child = (session: string, agentId: string, version: string, words: string[], path: string): void => {
    const id = C(session, agentId);
    const lines = words.map((word, i) => ({
      ...envelope(session, version, { parentUuid: i === 0 ? null : `p-${i}`, isSidechain: true, agentId }),
      type: i % 2 === 0 ? 'user' : 'assistant',
      message: i % 2 === 0 ? { role: 'user', content: `task ${p.text(word)}` } : { role: 'assistant', model: 'claude-haiku', content: [{ type: 'text', text: `answer ${p.text(word)}` }] },
      uuid: uuid(),
      timestamp: at(10 + i),
    }));
    write(path, lines, id);
    parents[id] = C(session);
    projects[id] = CLAUDE_CWD;
  };
  child(main, agent17, '2.1.101', ['nestedchildword', 'nestedchildanswerword'], `${projectDir}/${main}/subagents/agent-${agent17}.jsonl`);
  write(`${projectDir}/${main}/subagents/agent-${agent17}.meta.json`, `${JSON.stringify({ agentType: 'general-purpose', spawnDepth: 1, toolUseId: toolTask, description: p.meta('sidecarmetaword') })}\n`);
  child(main, agentCompact, '2.1.101', ['compactagentword'], `${projectDir}/${main}/subagents/agent-${agentCompact}.jsonl`);
  const nested7 = `a${hex(6)}`;
  const nested8 = `a${hex(7)}`;
  child(main, nested7, '2.1.2', ['nestedsevenword'], `${projectDir}/${main}/subagents/agent-${nested7}.jsonl`);
  child(main, nested8, '2.1.5', ['nestedeightword'], `${projectDir}/${main}/subagents/agent-${nested8}.jsonl`);

  // ---- A file whose first record names another session ------------------------
  const otherConv = C(otherNamed);
  write(`${projectDir}/${otherNamed}.jsonl`, [
    { ...envelope(otherFirst, '2.1.101'), type: 'user', message: { role: 'user', content: `copied from elsewhere ${p.text('foreignfirstword')}` }, uuid: uuid(), timestamp: at(20) },
    { ...envelope(otherNamed, '2.1.101'), type: 'user', message: { role: 'user', content: `own ${p.text('ownsessionword')}` }, uuid: uuid(), timestamp: at(21) },
  ], otherConv);
  parents[otherConv] = null;
  projects[otherConv] = CLAUDE_CWD;

  // ---- Legacy era (2.0.x): inline sidechains, flat sibling agent files --------
  const legacyConv = C(legacy);
  const inlineAgent = `a${hex(6)}`;
  const agent7 = `a${hex(6)}`;
  const agent8 = `a${hex(7)}`;
  const flatCompact = `acompact-${hex(8)}`;
  write(`${projectDir}/${legacy}.jsonl`, [
    { ...envelope(legacy, '2.0.14'), type: 'user', message: { role: 'user', content: `legacy ${p.text('legacypromptword')}` }, uuid: uuid(), timestamp: at(30) },
    { ...envelope(legacy, '2.0.14', { isSidechain: true, agentId: inlineAgent }), type: 'user', message: { role: 'user', content: `inline ${p.text('inlinesidechainword')}` }, uuid: uuid(), timestamp: at(30, 5) },
    { ...envelope(legacy, '2.0.14'), type: 'assistant', message: { role: 'assistant', model: 'claude-sonnet', content: [{ type: 'text', text: `back on the main line ${p.text('legacyanswerword')}` }] }, uuid: uuid(), timestamp: at(31) },
  ], (index) => (index === 1 ? C(legacy, inlineAgent) : legacyConv));
  parents[legacyConv] = null;
  projects[legacyConv] = CLAUDE_CWD;
  parents[C(legacy, inlineAgent)] = legacyConv;
  projects[C(legacy, inlineAgent)] = CLAUDE_CWD;
  child(legacy, agent7, '2.0.50', ['flatsevenword'], `${projectDir}/agent-${agent7}.jsonl`);
  child(legacy, agent8, '2.0.60', ['flateightword'], `${projectDir}/agent-${agent8}.jsonl`);
  child(legacy, flatCompact, '2.0.60', ['flatcompactword'], `${projectDir}/agent-${flatCompact}.jsonl`);

  // ---- Snapshot-only file ---------------------------------------------------------
  write(`${projectDir}/${snapshotOnly}.jsonl`, [
    { type: 'file-history-snapshot', messageId: uuid(), snapshot: { messageId: uuid(), trackedFileBackups: { '/elsewhere/snapshotpathmetaword.ts': { backupFileName: 'x@v1', version: 1, backupTime: at(40) } }, timestamp: at(40) }, isSnapshotUpdate: false },
    { type: 'summary', summary: `Session ${p.text('snapshotsummaryword')}`, leafUuid: uuid() },
    { type: 'file-history-snapshot', messageId: uuid(), snapshot: { messageId: uuid(), trackedFileBackups: {}, timestamp: at(41) }, isSnapshotUpdate: true },
  ], C(snapshotOnly));
  parents[C(snapshotOnly)] = null;
  projects[C(snapshotOnly)] = '';

  // ---- Codex ----------------------------------------------------------------------
  // The writer's local time is UTC-5: 23:30 on the 14th locally is 04:30 on the 15th in UTC.
  const full = uuid7();
  const bare = uuid7();
  const codexFull = `codex:${full}`;
  const codexBare = `codex:${bare}`;
  const ct = (second: number): string => new Date(Date.UTC(2026, 2, 15, 4, 30, second, 500)).toISOString();
  const line = (second: number, type: string, payload: Record<string, unknown>) => ({ timestamp: ct(second), type, payload });
  const callExec = `call_${b64(20).replace(/[+/]/g, 'q')}`;
  const callPatch = `call_${b64(20).replace(/[+/]/g, 'r')}`;
  const callSearch = `ws_${hex(16)}`;
  const callOrphan = `call_${b64(20).replace(/[+/]/g, 's')}`;
  const turn = uuid();
  const idePrompt = `# Context from my IDE setup:\n\n## Active file: src/${p.text('activefileword')}.ts\n\n## Open tabs:\n- src/ledger.ts\n\n## My request for Codex:\nMake the ${p.text('iderequestword')} pass`;
  const fullPath = `.codex/sessions/2026/03/14/rollout-2026-03-14T23-30-00-${full}.jsonl`;
  write(fullPath, [
    line(0, 'session_meta', {
      id: full,
      timestamp: ct(0),
      cwd: CODEX_CWD,
      originator: 'codex_vscode',
      cli_version: '0.130.0',
      source: 'vscode',
      thread_source: 'user',
      model_provider: 'openai',
      base_instructions: { text: 'You are Codex.' },
      dynamic_tools: [{ name: p.meta('dynamictoolmetaword'), description: 'a tool the IDE offers', input_schema: { type: 'object' } }],
      git: { commit_hash: hex(40), branch: p.meta('codexbranchmetaword'), repository_url: 'https://example.invalid/repo' },
    }),
    line(1, 'turn_context', { turn_id: turn, cwd: CODEX_CWD, approval_policy: 'on-request', sandbox_policy: { type: 'workspace-write' }, model: p.meta('codexmodelmetaword'), effort: 'high', summary: 'auto' }),
    line(2, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: idePrompt }] }),
    line(2, 'event_msg', { type: 'user_message', message: idePrompt, images: [] }),
    line(3, 'response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: `**Planning** ${p.text('reasoningsummaryword')}` }], content: null, encrypted_content: `gAAAAAB${b64(200)}` }),
    line(3, 'event_msg', { type: 'agent_reasoning', text: `**Planning** reasoningsummaryword, then ${p.text('agentreasoningword')}` }),
    line(4, 'response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: `rg ${p.text('execargword')}`, workdir: CODEX_CWD }), call_id: callExec }),
    line(5, 'event_msg', { type: 'exec_command_end', call_id: callExec, turn_id: turn, command: ['bash', '-lc', 'rg execargword'], cwd: CODEX_CWD, aggregated_output: `src/ledger.ts:9: ${p.text('execoutputword')}\n`, stdout: '', stderr: '', exit_code: 0, duration: { secs: 0, nanos: 5000000 }, formatted_output: '' }),
    line(5, 'response_item', { type: 'function_call_output', call_id: callExec, output: 'Process exited with code 0\nsrc/ledger.ts:9: execoutputword\n' }),
    line(6, 'response_item', { type: 'custom_tool_call', status: 'completed', call_id: callPatch, name: 'apply_patch', input: `*** Begin Patch\n*** Update File: src/ledger.ts\n@@\n-old\n+${p.text('patchlineword')}\n*** End Patch\n` }),
    line(7, 'event_msg', { type: 'patch_apply_end', call_id: callPatch, turn_id: turn, stdout: `Success. Updated the following files:\nM src/ledger.ts ${p.text('patchstdoutword')}\n`, stderr: '', success: true, changes: { [`${CODEX_CWD}/src/ledger.ts`]: { type: 'update', unified_diff: `@@ -1 +1 @@\n-old\n+${p.text('patchdiffword')}\n`, move_path: null } } }),
    line(7, 'response_item', { type: 'custom_tool_call_output', call_id: callPatch, output: JSON.stringify({ output: 'Success. Updated the following files:\nM src/ledger.ts\n', metadata: { exit_code: 0, duration_seconds: 0.1 } }) }),
    line(8, 'response_item', { type: 'web_search_call', status: 'completed', action: { type: 'search', query: `${p.text('websearchword')} docs` } }),
    line(8, 'event_msg', { type: 'web_search_end', call_id: callSearch, query: 'websearchword docs' }),
    line(9, 'event_msg', { type: 'turn_aborted', reason: 'interrupted', turn_id: turn }),
    line(10, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Done: ${p.text('assistantanswerword')}` }], phase: 'final_answer' }),
    line(10, 'event_msg', { type: 'agent_message', message: 'Done: assistantanswerword', phase: 'final_answer' }),
    line(11, 'event_msg', { type: 'token_count', info: { total_token_usage: { input_tokens: 100, output_tokens: 20 }, model_context_window: 258400 }, rate_limits: { primary: { used_percent: 1.5, window_minutes: 300 } } }),
    // A call whose output never came (the turn was interrupted).
    line(12, 'response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: `make ${p.text('orphancallword')}` }), call_id: callOrphan }),
  ], codexFull);
  parents[codexFull] = null;
  projects[codexFull] = CODEX_CWD;

  // A rollout without turn_context, token_count or agent_message: assistant text only in response items.
  write(`.codex/sessions/2026/03/14/rollout-2026-03-14T23-40-00-${bare}.jsonl`, [
    line(40, 'session_meta', { id: bare, timestamp: ct(40), cwd: CODEX_CWD, originator: 'codex_exec', cli_version: '0.98.0', source: 'exec', model_provider: 'openai', base_instructions: { text: 'You are Codex.' } }),
    line(41, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `bare ${p.text('bareuserword')}` }] }),
    line(42, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `bare ${p.text('bareanswerword')}` }] }),
    line(43, 'response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['ls', p.text('barecallword')] }), call_id: `call_${hex(10)}` }),
  ], codexBare);
  parents[codexBare] = null;
  projects[codexBare] = CODEX_CWD;

  return {
    files,
    searchable,
    metadata: [...p.metadata],
    parents,
    projects,
    absent: [C(otherFirst)],
    ids: {
      main,
      otherFirst,
      otherNamed,
      legacy,
      snapshotOnly,
      codexFull: full,
      codexBare: bare,
      codexFullPath: fullPath,
      duplicateWord: 'duplicatelineword',
      lateLineWord: 'latelineword',
      lateLineAt: '2026-03-14T08:00:00.000Z',
    },
  };
}
