// Derived text: the human and tool text inside a JSON record, without its
// metadata. A source module names the keys that are metadata for its format;
// everything else that is a string is text. Tolerant by design: unknown
// record types and fields are indexed, so new CLI versions stay searchable.
// Terminal escapes and control characters become spaces (controls.ts).

import { withoutControls } from './controls.ts';

export interface ExtractOptions {
  /** Keys whose values are metadata (ids, times, paths, model names...). */
  readonly skipKeys: ReadonlySet<string>;
}

const MAX_DEPTH = 64;
/** Strings longer than this without whitespace are opaque (base64, hashes). */
const OPAQUE_MIN = 200;
const OPAQUE = /^[A-Za-z0-9+/=_-]+$/;
/** Nested JSON inside a string (function-call arguments) is decoded once, if small enough. */
const NESTED_JSON_MAX = 4 * 1024 * 1024;

function looksLikeJson(s: string): boolean {
  const first = s.charCodeAt(0);
  const last = s.charCodeAt(s.length - 1);
  return (first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d);
}

/**
 * Collect the text values of `value`, each distinct string once, in document
 * order, joined by newlines. Duplicates are common (Claude repeats a tool's
 * output in toolUseResult; Codex mirrors messages as events) and add nothing
 * to a search document.
 */
export function extractText(value: unknown, options: ExtractOptions): string {
  const pieces: string[] = [];
  const seen = new Set<string>();

  const addString = (s: string, depth: number): void => {
    const text = s.trim();
    if (text.length === 0 || seen.has(text)) return;
    seen.add(text);
    if (text.length >= 2 && text.length <= NESTED_JSON_MAX && looksLikeJson(text)) {
      try {
        walk(JSON.parse(text), depth + 1);
        return;
      } catch {
        // Not JSON after all: keep it as text.
      }
    }
    if (text.length >= OPAQUE_MIN && OPAQUE.test(text)) return;
    pieces.push(withoutControls(text));
  };

  const walk = (v: unknown, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (typeof v === 'string') {
      addString(v, depth);
    } else if (Array.isArray(v)) {
      for (const item of v) walk(item, depth + 1);
    } else if (v !== null && typeof v === 'object') {
      const record = v as Record<string, unknown>;
      // An inline binary payload: {type: "base64", media_type, data}.
      const binary = typeof record.media_type === 'string';
      for (const key in record) {
        if (options.skipKeys.has(key)) continue;
        if (binary && key === 'data') continue;
        walk(record[key], depth + 1);
      }
    }
  };

  walk(value, 0);
  return pieces.join('\n');
}

const ESCAPE = /\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g;
const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * Text of a JSON fragment that cannot be parsed (a piece of an oversized line,
 * a malformed line): the bytes as they are, with JSON string escapes decoded
 * so that `\n` does not glue onto the next word and `\u00e9` reads as é.
 */
export function fragmentText(raw: string): string {
  if (raw.indexOf('\\') === -1) return withoutControls(raw);
  return withoutControls(
    raw.replace(ESCAPE, (_m, hex: string | undefined, simple: string | undefined) =>
      hex !== undefined ? String.fromCharCode(parseInt(hex, 16)) : (SIMPLE_ESCAPES[simple as string] ?? ''),
    ),
  );
}

/** Boundary characters after which a chunk's unfinished token starts. */
const TOKEN_BREAK = /[\s",:{}[\]]/;
export const CARRY_MAX = 256;

/**
 * The unfinished token a chunk ends with: the text after the last boundary
 * character, at most CARRY_MAX characters. Carried into the next chunk's
 * first fragment so a word split by the chunk boundary is indexed whole.
 */
export function trailingToken(text: string): string {
  const start = Math.max(0, text.length - CARRY_MAX);
  for (let i = text.length - 1; i >= start; i--) {
    if (TOKEN_BREAK.test(text[i] as string)) return text.slice(i + 1);
  }
  // Never start inside a surrogate pair.
  const code = text.charCodeAt(start);
  return text.slice(code >= 0xdc00 && code <= 0xdfff ? start + 1 : start);
}

/**
 * The carry of a chunk that ends mid-line: the trailing token of its last
 * bytes (`tail`, at most CARRY_MAX), decoded from the first UTF-8 lead byte
 * (the tail may start inside a character). Capture and reindex both use it,
 * so a rebuilt document equals the captured one.
 */
export function carryOf(tail: Uint8Array): string {
  let start = 0;
  while (start < tail.length && ((tail[start] as number) & 0xc0) === 0x80) start++;
  return trailingToken(Buffer.from(tail.buffer, tail.byteOffset + start, tail.length - start).toString('utf8'));
}

/**
 * `text` without the token trailingToken carries into the next chunk: the
 * fragment that ends mid-word indexes the word once, whole, in the next
 * fragment, not also its first half here.
 */
export function withoutTrailingToken(text: string): string {
  return text.slice(0, text.length - trailingToken(text).length);
}
