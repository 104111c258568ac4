// Turning what a person or an agent typed into something both engines can
// run safely. Any string is a valid query: words become quoted FTS5 strings
// (so `NEAR`, `*`, `-`, `(`, `:` and quotes are never FTS syntax), text in
// double quotes becomes a quoted phrase, and the literal engine gets folded
// needles. Nothing here touches a database.

import { fold } from '../../text/fold.ts';

/** At most this many FTS tokens are used (words beyond it are ignored). */
export const MAX_TERMS = 32;

const WORD = /[\p{L}\p{N}]+/gu;
/** Scripts written without spaces: a word there is a substring, which FTS5 tokens cannot express. */
const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

export interface ParsedQuery {
  /** Each entry is one FTS5 phrase: a single word, or the words of a quoted phrase. */
  readonly phrases: readonly (readonly string[])[];
  /** The FTS5 MATCH expression, or null when no word can be indexed (punctuation, emoji only). */
  readonly fts: string | null;
  /** Each phrase as its own FTS5 expression. */
  readonly ftsPhrases: readonly string[];
  /** Folded substrings the literal engine requires (AND). */
  readonly needles: readonly string[];
  /** Every distinct folded word (for highlighting and snippets). */
  readonly words: readonly string[];
  /** The query uses a script FTS5 cannot split into words; the literal engine may find more. */
  readonly spaceless: boolean;
}

interface Segment {
  readonly text: string;
  readonly quoted: boolean;
}

/** Split on double quotes: "..." pairs are phrases; an unpaired quote is ordinary text. */
function segments(query: string): Segment[] {
  const out: Segment[] = [];
  let rest = query;
  for (;;) {
    const open = rest.indexOf('"');
    const close = open === -1 ? -1 : rest.indexOf('"', open + 1);
    if (close === -1) {
      if (rest !== '') out.push({ text: rest, quoted: false });
      return out;
    }
    if (open > 0) out.push({ text: rest.slice(0, open), quoted: false });
    out.push({ text: rest.slice(open + 1, close), quoted: true });
    rest = rest.slice(close + 1);
  }
}

function quote(phrase: readonly string[]): string {
  // Tokens are letters and digits only, so they never contain a quote; escape anyway.
  return `"${phrase.join(' ').replaceAll('"', '""')}"`;
}

export function parseQuery(query: string): ParsedQuery {
  const phrases: string[][] = [];
  const needles: string[] = [];
  const seenPhrase = new Set<string>();
  let budget = MAX_TERMS;
  for (const segment of segments(query)) {
    const folded = fold(segment.text);
    if (segment.quoted) {
      const needle = folded.replace(/\s+/g, ' ').trim();
      if (needle !== '') needles.push(needle);
      const tokens = (folded.match(WORD) ?? []).slice(0, budget);
      budget -= tokens.length;
      const key = tokens.join(' ');
      if (tokens.length > 0 && !seenPhrase.has(key)) {
        seenPhrase.add(key);
        phrases.push(tokens);
      }
    } else {
      for (const piece of folded.split(/\s+/)) if (piece !== '') needles.push(piece);
      for (const token of folded.match(WORD) ?? []) {
        if (budget === 0) break;
        if (seenPhrase.has(token)) continue;
        seenPhrase.add(token);
        phrases.push([token]);
        budget--;
      }
    }
  }
  if (needles.length === 0) needles.push(fold(query.trim()));
  const words = [...new Set(phrases.flat())];
  return {
    phrases,
    fts: phrases.length === 0 ? null : phrases.map(quote).join(' AND '),
    ftsPhrases: phrases.map(quote),
    needles: [...new Set(needles)],
    words,
    spaceless: SPACELESS.test(query),
  };
}
