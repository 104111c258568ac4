// Snippets: at most 320 characters, whitespace collapsed, around the match.

import { fold } from '../../text/fold.ts';

export const SNIPPET_MAX = 320;

export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A cut position moved back so it never splits a surrogate pair. */
function safe(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return index > 0 && code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

/** Where the first needle occurs in `text` (case-folded, then diacritic-folded), or -1. */
export function findMatch(text: string, needles: readonly string[]): number {
  const lower = text.toLowerCase();
  let at = -1;
  for (const needle of needles) {
    const i = lower.indexOf(needle);
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  if (at !== -1 || needles.length === 0) return at;
  // Diacritics or compatibility forms: fold, then map the position back proportionally.
  const folded = fold(text);
  for (const needle of needles) {
    const i = folded.indexOf(needle);
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  return at === -1 ? -1 : Math.floor((at * text.length) / Math.max(1, folded.length));
}

/** A window of `text` around the first match of `needles`, collapsed, at most SNIPPET_MAX characters. */
export function snippetAround(text: string, needles: readonly string[], max = SNIPPET_MAX): string {
  const at = findMatch(text, needles);
  // Look at a little more raw text than we keep: collapsing whitespace shrinks it.
  const start = at <= max / 3 ? 0 : safe(text, at - Math.floor(max / 3));
  const raw = text.slice(start, safe(text, Math.min(text.length, start + max * 3)));
  const flat = collapse(raw);
  const prefix = start > 0 ? '…' : '';
  const room = max - prefix.length;
  if (flat.length <= room && start + raw.length >= text.length) return prefix + flat;
  return `${prefix}${flat.slice(0, safe(flat, room - 1))}…`;
}
