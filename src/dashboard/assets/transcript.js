// From retained records to what a reader sees: each record's exact bytes are
// split into lines (a line longer than a chunk is joined across the records
// of its source and generation), each line is parsed as its agent writes it
// (Claude Code, Codex, OpenCode rows, agent-bridge records), and becomes one
// or more entries with a role: user, assistant, tool-call, tool-result,
// reasoning, system or meta. Pure (no DOM): the page renders entries as text.

/** Lines longer than this are shown as a preview; the raw view has every byte. */
export const JOIN_MAX_BYTES = 2 * 1024 * 1024;
/** Characters of one entry's text kept for rendering (the rest: "show all" up to the line, raw view beyond). */
export const TEXT_MAX_CHARS = 200_000;

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

export function base64Bytes(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function str(value) {
  return typeof value === 'string' ? value : '';
}

function clip(text) {
  return text.length > TEXT_MAX_CHARS ? text.slice(0, TEXT_MAX_CHARS) : text;
}

function pretty(value) {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if ((trimmed.startsWith('{') && trimmed.endsWith('}')) || (trimmed.startsWith('[') && trimmed.endsWith(']'))) {
      try {
        return JSON.stringify(JSON.parse(trimmed), null, 2);
      } catch {
        return value;
      }
    }
    return value;
  }
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return String(value);
  }
}

/** Text of a content value: a string, or an array of blocks with text. */
function contentText(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : pretty(content);
  return content
    .map((block) => {
      if (typeof block === 'string') return block;
      if (block && typeof block === 'object') {
        if (typeof block.text === 'string') return block.text;
        if (block.type === 'image') return '[image]';
        return pretty(block);
      }
      return '';
    })
    .filter((t) => t !== '')
    .join('\n');
}

/** A tool's input as a reader wants it: a shell command as itself, anything else as JSON. */
function toolInput(input) {
  if (input && typeof input === 'object' && !Array.isArray(input) && typeof input.command === 'string') {
    const rest = Object.entries(input).filter(([k]) => k !== 'command' && k !== 'description');
    return `$ ${input.command}${rest.length > 0 ? `\n${pretty(Object.fromEntries(rest))}` : ''}`;
  }
  if (typeof input === 'string') {
    try {
      return toolInput(JSON.parse(input));
    } catch {
      return input;
    }
  }
  return pretty(input ?? {});
}

function entry(role, title, text, extra = {}) {
  return { role, title, text: clip(text), ...extra };
}

/** A record about the session rather than of the exchange (snapshots, modes, queue operations, token counts, step markers). */
function bookkeeping(title, text, extra = {}) {
  return entry('meta', title, text, { ...extra, bookkeeping: true });
}

// ---- Claude Code -----------------------------------------------------------

function claudeEntries(line) {
  const type = str(line.type);
  const message = line.message && typeof line.message === 'object' ? line.message : null;
  const side = line.isSidechain === true ? { sidechain: true } : {};
  if ((type === 'user' || type === 'assistant') && message) {
    const content = message.content;
    if (typeof content === 'string') return [entry(type, type === 'user' ? (line.isCompactSummary ? 'Compact summary' : 'User') : 'Assistant', content, side)];
    if (!Array.isArray(content)) return [entry('meta', type, pretty(message), side)];
    const out = [];
    for (const block of content) {
      if (!block || typeof block !== 'object') continue;
      switch (block.type) {
        case 'text':
          out.push(entry(type, type === 'user' ? 'User' : 'Assistant', str(block.text), side));
          break;
        case 'thinking':
        case 'redacted_thinking':
          out.push(entry('reasoning', 'Thinking', str(block.thinking) || str(block.data), side));
          break;
        case 'tool_use':
          out.push(entry('tool-call', str(block.name) || 'tool', toolInput(block.input), { ...side, toolId: str(block.id), tool: str(block.name) }));
          break;
        case 'tool_result': {
          // A subagent's report names its agent: link the result to the child conversation.
          const agentId = line.toolUseResult && typeof line.toolUseResult === 'object' ? str(line.toolUseResult.agentId) : '';
          const child = agentId && str(line.sessionId) ? { child: `claude:${line.sessionId}:native:${agentId}` } : {};
          out.push(entry('tool-result', block.is_error ? 'Tool error' : 'Tool result', contentText(block.content), { ...side, ...child, toolId: str(block.tool_use_id) }));
          break;
        }
        case 'image':
          out.push(entry('meta', 'Image', '[image]', side));
          break;
        default:
          out.push(bookkeeping(str(block.type) || 'block', pretty(block), side));
      }
    }
    return out.length > 0 ? out : [bookkeeping(type, '', side)];
  }
  if (type === 'system') return [entry('system', line.subtype ? `System · ${line.subtype}` : 'System', str(line.content) || pretty(line))];
  if (type === 'summary') return [entry('system', 'Summary', str(line.summary))];
  return [bookkeeping(type || 'record', pretty(line))];
}

// ---- Codex -----------------------------------------------------------------

function codexEntries(line) {
  const type = str(line.type);
  const p = line.payload && typeof line.payload === 'object' ? line.payload : {};
  if (type === 'response_item') {
    switch (p.type) {
      case 'message': {
        const role = str(p.role);
        const mapped = role === 'user' ? 'user' : role === 'assistant' ? 'assistant' : 'system';
        return [entry(mapped, role === 'developer' ? 'Developer' : role === 'user' ? 'User' : role === 'assistant' ? 'Assistant' : role || 'Message', contentText(p.content))];
      }
      case 'reasoning': {
        const summary = Array.isArray(p.summary) ? p.summary.map((s) => str(s?.text)).join('\n') : '';
        return [entry('reasoning', 'Reasoning', summary || contentText(p.content) || (p.encrypted_content ? '[encrypted]' : ''))];
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call':
        return [entry('tool-call', str(p.name) || p.type, toolInput(p.arguments ?? p.input ?? p.action), { toolId: str(p.call_id), tool: str(p.name) })];
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const output = p.output && typeof p.output === 'object' && typeof p.output.content === 'string' ? p.output.content : p.output;
        return [entry('tool-result', 'Tool result', pretty(output ?? ''), { toolId: str(p.call_id) })];
      }
      default:
        return [bookkeeping(str(p.type) || 'response item', pretty(p))];
    }
  }
  if (type === 'event_msg') {
    if (p.type === 'user_message') return [bookkeeping('User message event', str(p.message))];
    if (p.type === 'agent_message') return [bookkeeping('Agent message event', str(p.message))];
    if (p.type === 'agent_reasoning') return [entry('reasoning', 'Reasoning', str(p.text))];
    return [bookkeeping(str(p.type) || 'event', pretty(p))];
  }
  if (type === 'session_meta') return [entry('system', 'Session', pretty(p))];
  if (type === 'compacted') return [entry('system', 'Compacted', str(p.message) || pretty(p))];
  return [bookkeeping(type || 'record', pretty(line))];
}

// ---- OpenCode rows (the record's source names the table) -------------------

function opencodeEntries(row, table, state) {
  if (table === 'session') return [entry('system', 'Session', [str(row.title), str(row.directory)].filter(Boolean).join('\n'))];
  if (table === 'message') {
    const role = str(row.role);
    const created = row.time && typeof row.time.created === 'number' ? row.time.created : 0;
    state.messages.push({ role, created, completed: row.time?.completed ?? created });
    const model = [str(row.providerID), str(row.modelID)].filter(Boolean).join('/');
    return [entry('meta', role === 'user' ? 'User message' : `Assistant message${model ? ` · ${model}` : ''}`, '', { quiet: true })];
  }
  // A part: its role is that of the message whose time span holds it.
  const start = typeof row.time?.start === 'number' ? row.time.start : typeof row.time?.created === 'number' ? row.time.created : null;
  let role = '';
  if (start !== null) {
    for (const m of state.messages) if (m.created <= start) role = m.role;
  }
  switch (row.type) {
    case 'text':
      return [entry(role === 'user' ? 'user' : 'assistant', role === 'user' ? 'User' : 'Assistant', str(row.text))];
    case 'reasoning':
      return [entry('reasoning', 'Reasoning', str(row.text))];
    case 'tool': {
      const st = row.state && typeof row.state === 'object' ? row.state : {};
      const childId = row.tool === 'task' && st.metadata && typeof st.metadata.sessionId === 'string' ? { child: `opencode:${st.metadata.sessionId}` } : {};
      const out = [entry('tool-call', str(row.tool) || 'tool', toolInput(st.input), { ...childId, toolId: str(row.callID), tool: str(row.tool) })];
      if (st.output !== undefined || st.error !== undefined) out.push(entry('tool-result', st.error ? 'Tool error' : 'Tool result', pretty(st.output ?? st.error), { toolId: str(row.callID) }));
      return out;
    }
    case 'file':
      return [entry('meta', 'File', [str(row.filename), str(row.url)].filter(Boolean).join('\n'))];
    default:
      return [bookkeeping(str(row.type) || 'part', pretty(row), { quiet: ['step-start', 'step-finish', 'snapshot'].includes(row.type) })];
  }
}

function opencodeTable(source) {
  const m = /^opencode:[^:]+:(session|message|part):/.exec(source);
  return m ? m[1] : null;
}

// ---- agent-bridge and anything else ---------------------------------------

function otherEntries(value) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const body = str(value.body) || str(value.text) || str(value.message) || str(value.content) || str(value.summary);
    const from = str(value.from_name) || str(value.from) || str(value.sender) || str(value.agent);
    const title = [str(value.type) || str(value.kind) || 'Record', from ? `from ${from}` : ''].filter(Boolean).join(' · ');
    return [entry(body ? 'system' : 'meta', title, body || pretty(value))];
  }
  return [entry('meta', 'Record', pretty(value))];
}

/** Entries of one complete line (or one whole JSON document) of `agent`. */
export function lineEntries(agent, text, context = {}) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return text.trim() === '' ? [] : [entry('meta', 'Text', text)];
  }
  if (agent === 'claude' && value && typeof value === 'object' && !Array.isArray(value)) return claudeEntries(value);
  if (agent === 'codex' && value && typeof value === 'object' && !Array.isArray(value)) return codexEntries(value);
  const table = context.source ? opencodeTable(context.source) : null;
  if (table && value && typeof value === 'object') return opencodeEntries(value, table, context.state ?? { messages: [] });
  return otherEntries(value);
}

/**
 * Turns records (get_conversation's, in id order) into entries. Keeps the
 * unfinished line of each source generation until the record that continues
 * it arrives. Each entry names its record and the line's source offset and
 * byte length.
 */
export class TranscriptReader {
  constructor(agent) {
    this.agent = agent;
    this.pending = new Map();
    this.state = { messages: [] };
  }

  /** Entries of `record` (and of lines it completes); plain-text lines of one record form one entry. */
  push(record) {
    return mergeText(this.split(record));
  }

  split(record) {
    const bytes = base64Bytes(record.raw);
    const key = `${record.source}\u0000${record.generation}`;
    const out = [];
    let start = 0;
    let carried = this.pending.get(key);
    if (carried && carried.end !== record.offset) {
      out.push(...this.flush(key));
      carried = undefined;
    }
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] !== 0x0a) continue;
      const piece = bytes.subarray(start, i);
      if (carried) {
        out.push(...this.complete(carried, piece, record));
        this.pending.delete(key);
        carried = undefined;
      } else {
        out.push(...this.finish(record, record.offset + start, piece, [record.id]));
      }
      start = i + 1;
    }
    const tail = bytes.subarray(start);
    if (tail.length === 0) return out;
    if (carried) {
      carried.end = record.offset + bytes.length;
      carried.records.push(record.id);
      carried.size += tail.length;
      if (carried.bytes.length < JOIN_MAX_BYTES) carried.bytes = concat(carried.bytes, tail.subarray(0, JOIN_MAX_BYTES - carried.bytes.length));
      return out;
    }
    const text = decoder.decode(tail);
    // A record that is one whole JSON document (an OpenCode row, a JSON file) ends without a newline.
    if (start === 0 && looksWhole(text)) return [...out, ...this.finish(record, record.offset, tail, [record.id])];
    this.pending.set(key, { first: record, lineStart: record.offset + start, end: record.offset + bytes.length, bytes: tail.slice(), size: tail.length, records: [record.id] });
    return out;
  }

  complete(carried, piece, record) {
    carried.records.push(record.id);
    carried.size += piece.length;
    const joined = carried.bytes.length < JOIN_MAX_BYTES ? concat(carried.bytes, piece.subarray(0, JOIN_MAX_BYTES - carried.bytes.length)) : carried.bytes;
    return this.finish(carried.first, carried.lineStart, joined, carried.records, carried.size);
  }

  finish(record, lineStart, bytes, records, size = bytes.length) {
    const base = { record: record.id, records, source: record.source, generation: record.generation, line: lineStart, size, at: record.at };
    if (size > bytes.length) {
      return [{ ...base, role: 'meta', title: `Large line · ${formatSize(size)} across ${records.length} records`, text: clip(decoder.decode(bytes)), truncated: true }];
    }
    return lineEntries(this.agent, decoder.decode(bytes), { source: record.source, state: this.state }).map((e) => ({ ...base, ...e }));
  }

  /** The unfinished line of `key` as an entry (its continuation never came). */
  flush(key) {
    const carried = this.pending.get(key);
    if (!carried) return [];
    this.pending.delete(key);
    return this.finish(carried.first, carried.lineStart, carried.bytes, carried.records, carried.size);
  }

  /** Every unfinished line (the end of what is loaded). */
  flushAll() {
    return [...this.pending.keys()].flatMap((key) => this.flush(key));
  }
}

function mergeText(entries) {
  const out = [];
  for (const e of entries) {
    const last = out.at(-1);
    if (last && last.title === 'Text' && e.title === 'Text' && last.record === e.record && last.source === e.source && last.text.length < TEXT_MAX_CHARS) {
      out[out.length - 1] = { ...last, text: clip(`${last.text}\n${e.text}`), size: last.size + 1 + e.size };
    } else {
      out.push(e);
    }
  }
  return out;
}

function looksWhole(text) {
  const t = text.trim();
  if (!(t.startsWith('{') && t.endsWith('}'))) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

function formatSize(n) {
  return n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(0)} KiB` : `${(n / 1048576).toFixed(1)} MiB`;
}
