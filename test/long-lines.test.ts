// Lines longer than a chunk (64 KiB) keep no copy of their text either: the
// first part of such a line is a 'head' span (its JSON as far as it goes),
// and once the line completes (up to WHOLE_LINE_MAX) its whole text is a
// 'whole' span that begins in earlier records (document-text-schema.ts).
// Checked on lines of random lengths whose multi-byte characters fall across
// chunk boundaries: the index holds exactly the derived text (FTS5 integrity
// check against its content), each whole line's text is its parsed line's
// text, the words at both ends of every line are found with their snippets,
// and a store written before `reach` existed is upgraded in place and keeps
// answering as before.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openReader, openWriter, type Db } from '../src/store/open.ts';
import { transcriptText } from '../src/text/transcript-text.ts';
import { ftsIntegrityAgainstContent } from './helpers/store.ts';
import { cli, cliJson, envFor, tempDir } from './helpers/home.ts';
import { claudePath } from './helpers/rollouts.ts';

const CHUNK = 64 * 1024;
/** Characters of 1 to 4 UTF-8 bytes, so chunk boundaries cut inside them. */
const ALPHABET = ['a', 'é', 'ж', '日', '本', '😀', ' ', 'ß', '€', '\\', '"', '\n'];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function filler(next: () => number, chars: number): string {
  let out = '';
  while (out.length < chars) {
    out += next() < 0.15 ? ' ' : (ALPHABET[Math.floor(next() * ALPHABET.length)] as string);
  }
  return out;
}

function claudeRecord(session: string, text: string): string {
  return `${JSON.stringify({ type: 'user', message: { role: 'user', content: text }, cwd: '/work/long-lines', sessionId: session, timestamp: '2026-11-01T10:00:00.000Z', uuid: randomUUID() })}\n`;
}

async function ingest(env: NodeJS.ProcessEnv): Promise<void> {
  const run = await cli(['ingest', '--once', '--pace', 'max'], env);
  assert.equal(run.code, 0, run.stderr.toString());
}

function historyDb(home: string): string {
  return join(home, '.agent-bridge', 'history.db');
}


function withReader<T>(path: string, read: (db: Db) => T): T {
  const db = openReader(path);
  assert.ok(db !== null);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

interface Planted {
  readonly line: string;
  readonly first: string;
  readonly last: string;
}

/** A transcript of short and long lines; each long line starts and ends with a word of its own. */
function writeTranscript(path: string, session: string, seed: number, lines: number): Planted[] {
  const next = rng(seed);
  const planted: Planted[] = [];
  let text = '';
  for (let i = 0; i < lines; i++) {
    const long = next() < 0.6;
    const first = `frontword${seed}x${i}`;
    const last = `backword${seed}x${i}`;
    // Long: from just over one chunk to several (and a few just past the whole-line limit of 1 MiB).
    const chars = long ? (next() < 0.1 ? 1100 * 1024 : CHUNK / 2 + Math.floor(next() * 5 * CHUNK)) : Math.floor(next() * 400);
    const line = claudeRecord(session, `${first} ${filler(next, chars)} ${last}`);
    text += line;
    planted.push({ line, first, last });
  }
  writeFileSync(path, text);
  return planted;
}

async function hits(env: NodeJS.ProcessEnv, query: string): Promise<Array<{ snippet: string }>> {
  return (await cliJson<{ hits: Array<{ snippet: string }> }>(['search', query, '--json'], env)).hits;
}

describe('long lines', () => {
  it('derive head and whole texts from the bytes, across chunk boundaries inside characters', async () => {
    const home = tempDir();
    const env = envFor(home);
    const session = randomUUID();
    const path = claudePath(home, session, '-work-long-lines');
    const planted = writeTranscript(path, session, 7, 24);
    await ingest(env);

    const db = historyDb(home);
    const spans = withReader(db, (r) =>
      r.prepare('SELECT reach, start < 0 AS before, count(*) AS n FROM history_document_spans GROUP BY 1, 2 ORDER BY 1, 2').all(),
    ) as Array<{ reach: string | null; before: number; n: number }>;
    const count = (reach: string | null): number => spans.filter((s) => s.reach === reach).reduce((n, s) => n + s.n, 0);
    const wholeLines = planted.filter((p) => Buffer.byteLength(p.line) > CHUNK && Buffer.byteLength(p.line) <= 1024 * 1024).length;
    assert.ok(wholeLines >= 5, `${wholeLines} lines are indexed whole`);
    assert.equal(count('whole'), wholeLines, 'one whole span per completed long line');
    assert.ok(spans.every((s) => (s.reach === 'whole') === (s.before === 1)), 'exactly the whole spans begin before their record');
    assert.ok(count('head') >= wholeLines, 'every long line has a head span');
    const stored = withReader(db, (r) => r.prepare("SELECT count(*) FROM history_documents WHERE body <> ''").pluck().get());
    assert.equal(stored, 0, 'no document keeps its text');
    ftsIntegrityAgainstContent(db);

    // Each whole line's derived text is the text of the line as written.
    const texts = withReader(db, (r) =>
      r.prepare("SELECT t.body FROM history_document_spans s JOIN history_document_text t ON t.doc = s.doc WHERE s.reach = 'whole' ORDER BY s.doc").pluck().all(),
    ) as string[];
    const expected = planted.filter((p) => Buffer.byteLength(p.line) > CHUNK && Buffer.byteLength(p.line) <= 1024 * 1024).map((p) => transcriptText('claude', JSON.parse(p.line)));
    assert.deepEqual(texts, expected);

    for (const p of planted.slice(0, 10)) {
      const [front, back] = [await hits(env, p.first), await hits(env, p.last)];
      assert.ok(front.length >= 1 && front.some((h) => h.snippet.includes(p.first)), `${p.first} found with its snippet`);
      assert.ok(back.length >= 1 && back.some((h) => h.snippet.includes(p.last)), `${p.last} found with its snippet`);
    }
    const sameText = withReader(db, (r) => r.prepare('SELECT count(*) FROM history_document_text').pluck().get());
    const reindex = await cli(['reindex'], env);
    assert.equal(reindex.code, 0, reindex.stderr.toString());
    assert.equal(withReader(db, (r) => r.prepare('SELECT count(*) FROM history_document_text').pluck().get()), sameText);
    ftsIntegrityAgainstContent(db);
  });

  it('upgrade a store written before reach, keeping its documents and indexing new long lines whole', async () => {
    const home = tempDir();
    const env = envFor(home);
    const session = randomUUID();
    const path = claudePath(home, session, '-work-long-lines');
    writeFileSync(path, claudeRecord(session, 'shortline quillfeather before the upgrade'));
    await ingest(env);
    const db = historyDb(home);
    // The layout as it was: no reach column, and the view that reads spans inside their record only.
    const old = openWriter(db);
    try {
      old.exec(`DROP VIEW history_document_text;
        CREATE VIEW history_document_text (doc, body) AS
        SELECT d.rowid, CASE WHEN s.doc IS NULL THEN d.body ELSE history_span_text(substr(cr.raw, s.start + 1, s.length), s.format, s.carry, s.trimmed) END
        FROM history_documents d
        LEFT JOIN history_document_spans s ON s.doc = d.rowid
        LEFT JOIN history_document_refs r ON r.doc = s.doc
        LEFT JOIN conversation_records cr ON cr.id = r.record`);
      old.exec('ALTER TABLE history_document_spans DROP COLUMN reach');
    } finally {
      old.close();
    }
    assert.equal((await hits(env, 'quillfeather')).length, 1, 'readers answer from the old view');

    const long = claudeRecord(session, `longstart ${filler(rng(3), 3 * CHUNK)} longfinish`);
    appendFileSync(path, long);
    await ingest(env);
    const columns = withReader(db, (r) => r.prepare("SELECT name FROM pragma_table_info('history_document_spans')").pluck().all());
    assert.ok((columns as string[]).includes('reach'), 'the writer added the column');
    const whole = withReader(db, (r) => r.prepare("SELECT count(*) FROM history_document_spans WHERE reach = 'whole'").pluck().get());
    assert.equal(whole, 1, 'the new long line is indexed whole');
    ftsIntegrityAgainstContent(db);
    for (const word of ['quillfeather', 'longstart', 'longfinish']) assert.equal((await hits(env, word)).length, 1, word);
  });
});
