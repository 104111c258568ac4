// Case and diacritic folding for the literal (non-FTS) search path. The same
// function folds documents and queries, so "Café" finds "cafe" and "CAFÉ".

const COMBINING_MARKS = /\p{M}+/gu;

export function fold(text: string): string {
  return text.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase();
}
