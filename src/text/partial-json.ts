// The value a JSON text that stops part way would have had, as far as it goes:
// the first part of a line caught half-written, or of a line longer than a
// chunk. Open strings, arrays and objects are closed where the text ends; a
// key without its value, a number or literal cut short, and a string cut
// inside an escape are left out. The source module's decoder then derives the
// line's human text from this value exactly as from a whole line, so its
// metadata (ids, session ids, timestamps) stays out of the index.

type Container = { kind: 'object'; value: Record<string, unknown>; key: string | null } | { kind: 'array'; value: unknown[] };

const LITERALS: Record<string, unknown> = { true: true, false: false, null: null };
const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Read a string starting after its opening quote; returns the text and the index after it, or `end: -1` when it is cut off. */
function readString(text: string, start: number): { value: string; end: number } {
  let out = '';
  let i = start;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') return { value: out, end: i + 1 };
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined) break;
      if (next === 'u') {
        const hex = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) break;
        out += String.fromCharCode(parseInt(hex, 16));
        i += 6;
        continue;
      }
      const simple = SIMPLE_ESCAPES[next];
      if (simple === undefined) throw new SyntaxError('bad escape');
      out += simple;
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  return { value: out, end: -1 };
}

/**
 * The value of the JSON prefix `text`, or undefined when it is not the start
 * of a JSON object or array (a malformed line: its text is indexed as is).
 */
export function partialJson(text: string): unknown {
  const stack: Container[] = [];
  let root: unknown;
  let i = 0;
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
  };
  const put = (value: unknown): void => {
    const top = stack[stack.length - 1];
    if (top === undefined) root = value;
    else if (top.kind === 'array') top.value.push(value);
    else if (top.key !== null) {
      top.value[top.key] = value;
      top.key = null;
    }
  };
  try {
    ws();
    if (text[i] !== '{' && text[i] !== '[') return undefined;
    while (i < text.length) {
      ws();
      if (i >= text.length) break;
      const c = text[i] as string;
      const top = stack[stack.length - 1];
      if (c === '{' || c === '[') {
        const container: Container = c === '{' ? { kind: 'object', value: {}, key: null } : { kind: 'array', value: [] };
        put(container.value);
        stack.push(container);
        i++;
      } else if (c === '}' || c === ']') {
        stack.pop();
        i++;
        if (stack.length === 0) return root;
      } else if (c === ',' || c === ':') {
        i++;
      } else if (c === '"') {
        const { value, end } = readString(text, i + 1);
        const isKey = top?.kind === 'object' && top.key === null;
        if (isKey) {
          if (end === -1) break; // a key cut off: nothing of it
          top.key = value;
        } else {
          put(value); // a value cut off is kept as far as it goes
          if (end === -1) break;
        }
        i = end;
      } else {
        const match = /^-?\d+(\.\d+)?([eE][+-]?\d+)?|^(true|false|null)/.exec(text.slice(i, i + 64));
        if (match === null) return stack.length === 0 ? undefined : root;
        const token = match[0];
        if (i + token.length >= text.length) break; // possibly cut short
        put(token in LITERALS ? LITERALS[token] : Number(token));
        i += token.length;
      }
    }
  } catch {
    return root;
  }
  return root;
}
