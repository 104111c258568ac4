// The text of a JSONL segment (a line, or the part of a line inside one
// chunk), made one way by the parser at capture and, from the retained bytes
// and the segment's TextRecipe, by readers of a store that keeps only the
// recipe. Both call segmentText, so the two cannot drift apart:
//   a fragment (a continuation, an unfinished line, a line that is not JSON):
//     its bytes with JSON escapes decoded, after the carried token;
//   a complete line that parses: its decoder's text;
//   trimmed: without the trailing token the next chunk carries;
//   reach 'head' (the first part of a line that goes on): its decoder's text
//     of the JSON as far as it goes (partial-json.ts);
//   reach 'whole': the bytes are the whole line (from its start in earlier
//     records), decoded as a complete line.

import type { TextRecipe } from '../../protocols/records.ts';
import { fragmentText, withoutTrailingToken } from './extract.ts';
import { partialJson } from './partial-json.ts';
import { transcriptText } from './transcript-text.ts';

/** `decoded`: the decoder's text of the parsed line (null: a fragment, or not JSON). */
export function segmentText(line: string, decoded: string | null, cut: Pick<TextRecipe, 'carry' | 'trimmed'>): string {
  const text = cut.carry !== null ? fragmentText(cut.carry + line) : (decoded ?? fragmentText(line));
  return cut.trimmed ? withoutTrailingToken(text) : text;
}

/**
 * The text of a segment from its bytes (its newline included when it is a
 * complete line), as the parser made it for `recipe`.
 */
export function spanText(bytes: Uint8Array, recipe: TextRecipe): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const complete = buf.length > 0 && buf[buf.length - 1] === 10;
  const line = buf.toString('utf8', 0, complete ? buf.length - 1 : buf.length);
  if (recipe.reach === 'head') {
    const text = transcriptText(recipe.format, partialJson(line));
    return recipe.trimmed ? withoutTrailingToken(text) : text;
  }
  let decoded: string | null = null;
  if (recipe.carry === null && complete) {
    try {
      decoded = transcriptText(recipe.format, JSON.parse(line));
    } catch {
      // Not JSON: indexed as a fragment, as the parser does.
    }
  }
  return segmentText(line, decoded, recipe);
}
