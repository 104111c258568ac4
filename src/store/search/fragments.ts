// Lines longer than one 64 KiB chunk are captured as several documents (one
// per fragment). A query of one phrase finds such a line through any
// fragment, but "every word must match" is a property of the line: its words
// can sit in different fragments. This module finds those lines.
//
// The fragment index (per connection, extended as records arrive) knows every
// line that spans records: a record whose first document starts before the
// record (refs.line < record offset) continues a line. It is read from the
// (source, generation, offset) index of conversation_records and two lookups
// per record, once, then only for new records; it exists only for stores with
// history_document_refs (legacy documents are per record, not per line).

import type { Db } from '../open.ts';
import type { Candidate } from './fts.ts';
import type { Layout } from './layout.ts';
import { type Scope, scopeJoins } from './scope.ts';
import { prepared } from '../statements.ts';
import { ROWID } from './rowid.ts';

interface FragmentIndex {
  maxRecord: number;
  /** Line key → the rowids of its fragment documents, ascending. */
  readonly docsOf: Map<string, number[]>;
  /** Fragment document rowid → line key. */
  readonly lineOf: Map<number, string>;
}

const indexes = new WeakMap<Db, FragmentIndex>();

interface ContinuationRow {
  readonly record: number;
  readonly source: string;
  readonly generation: number;
  readonly doc: number;
  readonly line: number;
}

function lineKey(source: string, generation: number, line: number): string {
  // The same key as Layout.lineKey, so copies found either way collapse into one hit.
  return `${source}\0${generation}\0${line}`;
}

function addDoc(index: FragmentIndex, key: string, doc: number): void {
  if (index.lineOf.has(doc)) return;
  index.lineOf.set(doc, key);
  const docs = index.docsOf.get(key);
  if (docs === undefined) index.docsOf.set(key, [doc]);
  else {
    docs.push(doc);
    docs.sort((a, b) => a - b);
  }
}

/** The fragment index of `db`, brought up to date with records added since the last call. */
export function fragmentIndex(db: Db): FragmentIndex {
  let index = indexes.get(db);
  if (index === undefined) {
    index = { maxRecord: 0, docsOf: new Map(), lineOf: new Map() };
    indexes.set(db, index);
  }
  const top = (prepared(db, 'SELECT max(rowid) FROM conversation_records').pluck().get() as number | null) ?? 0;
  if (top <= index.maxRecord) return index;
  // The first build reads the small (source, generation, offset) index; later ones only the new rows.
  const from = index.maxRecord === 0 ? 'conversation_records cr INDEXED BY sqlite_autoindex_conversation_records_1' : 'conversation_records cr';
  const rows = prepared(
    db,
    `SELECT cr.rowid AS record, cr.source AS source, cr.generation AS generation, r.doc AS doc, r.line AS line
     FROM ${from}
     JOIN history_documents d ON d.id = 'durable:' || cr.rowid || ':' || cr.offset
     JOIN history_document_refs r ON r.doc = d.rowid
     WHERE cr.rowid > ? AND cr.rowid <= ? AND r.line < cr.offset`,
  ).all(index.maxRecord, top) as ContinuationRow[];
  const first = prepared(
    db,
    `SELECT d.rowid FROM history_documents d
     WHERE d.id = 'durable:' || (SELECT rowid FROM conversation_records WHERE source = ? AND generation = ? AND offset <= ? ORDER BY offset DESC LIMIT 1) || ':' || CAST(? AS INTEGER)`,
  ).pluck();
  for (const row of rows) {
    const key = lineKey(row.source, row.generation, row.line);
    if (!index.docsOf.has(key)) {
      const head = first.get(row.source, row.generation, row.line, row.line) as number | undefined;
      if (head !== undefined) addDoc(index, key, head);
    }
    addDoc(index, key, row.doc);
  }
  index.maxRecord = top;
  return index;
}

/** Matches of a phrase counted (in C) up to this many: enough to tell a rare phrase from a common one. */
const COUNT_CAP = 4096;

/**
 * Reading one match costs about this many times less than asking whether
 * one document matches a word (measured on a 1 GiB store: about 0.3 µs a
 * match read into JS, 18-25 µs a probe).
 */
const PROBE_MATCHES = 64;

/** A phrase of one word (quote() joins a phrase's tokens with spaces, and tokens are letters and digits). */
function oneWord(phrase: string): boolean {
  return !phrase.includes(' ');
}

/**
 * Lines that match every phrase across their fragments, among the fragments
 * in the rowid range [lo, hi], as candidates: the line's first fragment in
 * range stands for it (it must pass the filters). They rank after every
 * document that matches on its own (score 0; bm25 scores are negative):
 * words 64 KiB or more apart are the weakest kind of match. `search` asks
 * only when the documents that match on their own do not fill the page.
 *   The rarest phrase is read first (every match in the range), and each
 * later one only where lines are still possible: a word is asked of those
 * lines' fragments one by one when they are few against its matches (a
 * rare word and a common one cost the rare word's matches, not the common
 * one's). A phrase of several words is always read: FTS5 answers "does this
 * document match" for one by reading on to its next match, which can be far.
 */
export function splitLines(db: Db, layout: Layout, phrases: readonly string[], scope: Scope, lo: number, hi: number): Candidate[] {
  if (phrases.length < 2 || !layout.refs || !layout.records || scope.empty) return [];
  const index = fragmentIndex(db);
  if (index.lineOf.size === 0) return [];
  const count = prepared(db, `SELECT count(*) FROM (SELECT 1 FROM history_fts WHERE history_fts MATCH ? AND rowid BETWEEN ${ROWID} AND ${ROWID} LIMIT ?)`).pluck();
  const matches = prepared(db, `SELECT rowid FROM history_fts WHERE history_fts MATCH ? AND rowid BETWEEN ${ROWID} AND ${ROWID}`).pluck();
  const probe = prepared(db, `SELECT 1 FROM history_fts WHERE history_fts MATCH ? AND rowid = ${ROWID}`).pluck();
  const byRarity = phrases.map((phrase) => ({ phrase, n: count.get(phrase, lo, hi, COUNT_CAP) as number })).sort((a, b) => a.n - b.n);
  let lines: Set<string> | null = null;
  for (const { phrase, n } of byRarity) {
    const next = new Set<string>();
    const docs = lines === null ? null : fragmentsOf(index, lines, lo, hi);
    if (docs !== null && oneWord(phrase) && docs.length * PROBE_MATCHES <= n) {
      for (const doc of docs) if (probe.get(phrase, doc) !== undefined) next.add(index.lineOf.get(doc) as string);
    } else {
      for (const rowid of matches.all(phrase, lo, hi) as number[]) {
        const key = index.lineOf.get(rowid);
        if (key !== undefined && (lines === null || lines.has(key))) next.add(key);
      }
    }
    lines = next;
    if (lines.size === 0) return [];
  }
  const heads: number[] = [];
  for (const key of lines ?? []) {
    const head = (index.docsOf.get(key) ?? []).find((doc) => doc >= lo && doc <= hi);
    if (head !== undefined) heads.push(head);
  }
  const joins = scopeJoins(layout, scope, 'f.rowid');
  const passing = prepared(db, `SELECT f.rowid FROM (SELECT value AS rowid FROM json_each(?)) f ${joins} WHERE 1 = 1${scope.where}`)
    .pluck()
    .all(JSON.stringify(heads), ...scope.params) as number[];
  return passing.map((rowid) => ({ rowid, score: 0 }));
}

/** The fragment documents of `lines` within [lo, hi]. */
function fragmentsOf(index: FragmentIndex, lines: ReadonlySet<string>, lo: number, hi: number): number[] {
  const docs: number[] = [];
  for (const key of lines) for (const doc of index.docsOf.get(key) ?? []) if (doc >= lo && doc <= hi) docs.push(doc);
  return docs;
}
