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

/**
 * Lines that match every phrase across their fragments, among the fragments
 * in the rowid range [lo, hi], as candidates: the line's first fragment in
 * range stands for it (it must pass the filters). They rank after every
 * document that matches on its own (score 0; bm25 scores are negative):
 * words 64 KiB or more apart are the weakest kind of match. Costs one pass
 * over each phrase's matches in the range, so `search` asks only when the
 * documents that match on their own do not fill the page.
 */
export function splitLines(db: Db, layout: Layout, phrases: readonly string[], scope: Scope, lo: number, hi: number): Candidate[] {
  if (phrases.length < 2 || !layout.refs || !layout.records || scope.empty) return [];
  const index = fragmentIndex(db);
  if (index.lineOf.size === 0) return [];
  const matches = prepared(db, `SELECT rowid FROM history_fts WHERE history_fts MATCH ? AND rowid BETWEEN ${ROWID} AND ${ROWID}`).pluck();
  let lines: Set<string> | null = null;
  for (const phrase of phrases) {
    const next = new Set<string>();
    for (const rowid of matches.iterate(phrase, lo, hi) as Iterable<number>) {
      const key = index.lineOf.get(rowid);
      if (key !== undefined && (lines === null || lines.has(key))) next.add(key);
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
