// Terminal escape sequences and control characters in derived text. Tool
// output is often coloured (`\u001b[31mFAILED\u001b[0m`): left in, the
// sequence's letters glue onto the word (`31mFAILED`), which then cannot be
// found, and snippets show garbage. The retained bytes keep them; only the
// search text loses them: each sequence or control character becomes a space.
// Newlines, tabs and carriage returns stay (they are whitespace already).
// An OSC sequence (a window title, an OSC 8 hyperlink) keeps its text.

const ANY_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** CSI sequences (ESC [ or U+009B, parameters, a final byte), OSC introducers and terminators, other two-byte escapes. */
const ESCAPES = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b\]\d*;?|\u001b\\|\u001b[@-Z^_]/g;
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]+/g;

export function withoutControls(text: string): string {
  if (!ANY_CONTROL.test(text)) return text;
  return text.replace(ESCAPES, ' ').replace(CONTROLS, ' ');
}
