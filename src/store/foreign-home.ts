// foreignHome (specification, "Custom bridge homes and old fixture rows"):
// conversation reads add `foreignHome: true` to records conclusively
// identified as fixture data of another (test) bridge home. Conclusive means
// exactly one of:
//   - the record's source path lies inside a nested test home
//     (a `.agent-bridge-test/<name>/home` path segment, either separator);
//   - a job snapshot whose workdir is such a home;
//   - a bridge message sent by the recorded `owner-smoke-main` sender, or by
//     the bundled `claude-e2e`, `codex-e2e` or `antigravity-e2e` senders.
// Unknown provenance stays unmarked: transcripts are never judged by their
// content, and bytes that are not a whole row are not guessed at. Nothing is
// deleted or changed; consumers can exclude flagged records.
//
// One function, shared by every reader (get_conversation, the dashboard,
// mirrors): pass a record's source key and its raw bytes.

/** A `.agent-bridge-test/<name>/home` path segment. */
const TEST_HOME = /[\\/]\.agent-bridge-test[\\/][^\\/]+[\\/]home(?:[\\/]|$)/;
const FIXTURE_SENDERS = new Set(['owner-smoke-main', 'claude-e2e', 'codex-e2e', 'antigravity-e2e']);
/** Sources whose bytes are bridge rows: message envelopes and archive rows, job snapshots. */
const MESSAGE_SOURCE = /^messages:/;
const JOB_SOURCE = /^job-snapshot:/;
/** A message's first chunk names its sender near the start (column order: id, recipient, from_id, from_name). */
const SENDER_FIELD = /"from_(?:name|id)"\s*:\s*"((?:\\.|[^"\\]){1,128})"/g;
const HEAD_BYTES = 4096;
const PARSE_LIMIT = 1 << 20;

function utf8(raw: Uint8Array, end = raw.length): string {
  return Buffer.from(raw.buffer, raw.byteOffset, Math.min(end, raw.byteLength)).toString('utf8');
}

function objectOf(raw: Uint8Array): Record<string, unknown> | null {
  if (raw.length > PARSE_LIMIT || raw[0] !== 0x7b) return null;
  try {
    const value: unknown = JSON.parse(utf8(raw));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function isTestHomePath(path: string): boolean {
  return TEST_HOME.test(path);
}

function sentByFixture(raw: Uint8Array): boolean {
  const row = objectOf(raw);
  if (row !== null) return [row.from_name, row.from_id].some((s) => typeof s === 'string' && FIXTURE_SENDERS.has(s));
  // The first chunk of a message larger than one record: its sender is in the head.
  if (raw[0] !== 0x7b) return false;
  for (const match of utf8(raw, HEAD_BYTES).matchAll(SENDER_FIELD)) {
    try {
      if (FIXTURE_SENDERS.has(JSON.parse(`"${match[1] as string}"`) as string)) return true;
    } catch {
      // not a plain string
    }
  }
  return false;
}

/** Whether the record (source key, raw bytes) is conclusively another test home's fixture data. */
export function isForeignHome(source: string, raw: Uint8Array): boolean {
  if (TEST_HOME.test(source)) return true;
  if (MESSAGE_SOURCE.test(source)) return sentByFixture(raw);
  if (JOB_SOURCE.test(source)) {
    const workdir = objectOf(raw)?.workdir;
    return typeof workdir === 'string' && TEST_HOME.test(`${workdir}/`);
  }
  return false;
}
