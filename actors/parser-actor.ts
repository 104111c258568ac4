// Parser actor: runs in a piscina thread. Pure: a chunk's bytes in
// (transferred), decoded segments out (the bytes transferred back, the
// segments' texts in one transferred buffer: protocols/segment-texts.ts). It
// never opens a file or a database; one module per format does the decoding.

import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { ParseResult, ParseTask } from '../protocols/records.ts';
import { packTexts } from '../protocols/segment-texts.ts';
import { claudeDecoder } from '../src/sources/claude.ts';
import { codexDecoder } from '../src/sources/codex.ts';
import { parseJsonlChunk, parseOpaqueChunk, parseTextChunk } from '../src/sources/jsonl.ts';
import { parseOpencodeJsonChunk } from '../src/sources/opencode/legacy-json.ts';
import { parseApprovalChunk } from '../src/bridge/files/approvals.ts';
import { parseJournalChunk } from '../src/bridge/files/context-events.ts';
import { parseRunLogChunk, parseRunMetaChunk } from '../src/bridge/files/runs.ts';

export function parseChunk(task: ParseTask): ParseResult {
  switch (task.format) {
    case 'claude':
      return parseJsonlChunk(task, claudeDecoder);
    case 'codex':
      return parseJsonlChunk(task, codexDecoder);
    case 'text':
      return parseTextChunk(task);
    case 'opaque':
      return parseOpaqueChunk(task);
    case 'opencode-json':
      return parseOpencodeJsonChunk(task);
    case 'run-log':
      return parseRunLogChunk(task);
    case 'run-meta':
      return parseRunMetaChunk(task);
    case 'approval':
      return parseApprovalChunk(task);
    case 'journal':
      return parseJournalChunk(task);
  }
}

/** piscina handler: hands the chunk's buffer and the texts' buffer back instead of copying them. */
export default function handle(task: ParseTask): unknown {
  const result = packTexts(parseChunk(task));
  return move({
    [transferableSymbol]: [result.bytes.buffer, result.texts.buffer],
    [valueSymbol]: result,
  } as never);
}
