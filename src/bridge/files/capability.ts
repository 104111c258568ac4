// Approval capabilities (specification, "What is retained": "Approval
// capabilities (tokens and listening ports) are excluded"). An approval
// request file ends with the local capability `,"pid":N,"port":N,"token":"…"}`
// (docs/legacy-bridge-layout.md §5). The retained copy has it overwritten
// with spaces of the same byte length, exactly as the 0.29.17 ingestor did,
// so the copy stays valid JSON, offsets stay file offsets, and nothing is
// derived from the capability. The file itself is never touched: this works
// on the chunk's own buffer, after the bytes were read.
//
// Besides the trailing form, any other "pid", "port" or "token" member is
// blanked too (with an adjacent comma, so the JSON stays valid): a request
// written by a future version with a different field order must not leak.

const VALUE = String.raw`(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:\\.|[^"\\])*"|true|false|null)`;
const KEY = String.raw`"(?:pid|port|token)"\s*:\s*`;
/** The 0.29 trailing capability, matched on a latin1 view (one character per byte). */
const TRAILING = new RegExp(String.raw`,\s*"pid"\s*:\s*-?\d+\s*,\s*"port"\s*:\s*-?\d+\s*,\s*"token"\s*:\s*"(?:\\.|[^"\\])*"\s*}\s*$`);
const MEMBER_AFTER_COMMA = new RegExp(String.raw`,\s*${KEY}${VALUE}`, 'g');
const MEMBER_BEFORE_COMMA = new RegExp(String.raw`${KEY}${VALUE}\s*,`, 'g');
const MEMBER_ALONE = new RegExp(`${KEY}${VALUE}`, 'g');

const SPACE = 0x20;
const CLOSE = 0x7d;

function fill(bytes: Uint8Array, start: number, end: number): void {
  bytes.fill(SPACE, start, end);
}

/**
 * Blank every capability member in `bytes` (in place). Returns how many
 * members were blanked. Same length in, same length out.
 */
export function blankCapability(bytes: Uint8Array): number {
  // latin1 maps each byte to one character: match offsets are byte offsets,
  // and no byte of a multi-byte UTF-8 character can look like `"` or `\`.
  let view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let blanked = 0;
  const trailing = TRAILING.exec(view);
  if (trailing !== null) {
    const end = trailing.index + trailing[0].length;
    fill(bytes, trailing.index, end - 1);
    bytes[end - 1] = CLOSE;
    blanked += 3;
    view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }
  for (const pattern of [MEMBER_AFTER_COMMA, MEMBER_BEFORE_COMMA, MEMBER_ALONE]) {
    pattern.lastIndex = 0;
    for (const match of view.matchAll(pattern)) {
      fill(bytes, match.index, match.index + match[0].length);
      blanked++;
    }
    view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }
  return blanked;
}

/** Whether `bytes` still holds a capability member (a check for tests and status). */
export function holdsCapability(bytes: Uint8Array): boolean {
  MEMBER_ALONE.lastIndex = 0;
  return MEMBER_ALONE.test(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'));
}
