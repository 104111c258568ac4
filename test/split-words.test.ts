// A word cut by a 64 KiB chunk boundary is indexed once, whole: the chunk
// that ends mid-word leaves its trailing token to the next chunk's carry, so
// neither half of the word is a search hit of its own. At the end of what
// exists (an unfinished last line) the last word stays findable.
//
// Property over the cut position: every split of a word (also words with
// two-byte UTF-8 letters, which the chunker never cuts inside), at the first
// boundary of a line (head fragment) and at the second (continuation fragment).
// Reindex derives the same carries from the retained chunks as capture did.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { LIMITS } from '../src/config/limits.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { openReader, type Db } from '../src/store/open.ts';
import { search } from '../src/store/search.ts';
import { documentsWithText } from './helpers/document-text.ts';
import { cli, envFor, prng, tempDir } from './helpers/home.ts';

const CHUNK = LIMITS.chunkBytes;
const WORD_CHARS = 16;
const CWD = '/home/dev/split-words';

interface Planted {
  readonly word: string;
  /** The word's text before and after the chunk boundary. */
  readonly head: string;
  readonly tail: string;
}

function randomWord(next: () => number, alphabet: readonly string[]): string {
  let word = '';
  while ([...word].length < WORD_CHARS) word += alphabet[Math.floor(next() * alphabet.length)];
  return word;
}

/**
 * One Claude line whose content puts `word` across file offset `boundary`,
 * cut after `cut` characters (spaces pad the rest, so tokens stay apart).
 */
function lineAcross(session: string, word: string, cut: number, boundary: number): { line: string; planted: Planted } {
  const chars = [...word];
  const head = chars.slice(0, cut).join('');
  const tail = chars.slice(cut).join('');
  const marker = '\u0000MARK\u0000';
  const shell = JSON.stringify({
    type: 'user',
    sessionId: session,
    cwd: CWD,
    uuid: randomUUID(),
    timestamp: '2026-03-01T10:00:00.000Z',
    message: { role: 'user', content: marker },
  });
  const at = shell.indexOf(JSON.stringify(marker).slice(1, -1));
  const before = Buffer.byteLength(shell.slice(0, at));
  const pad = ' '.repeat(boundary - before - Buffer.byteLength(head));
  const content = `${pad}${word}${' '.repeat(CHUNK)} closing words`;
  const line = `${shell.slice(0, at)}${content}${shell.slice(at + JSON.stringify(marker).length - 2)}\n`;
  assert.equal(Buffer.from(line).subarray(0, boundary).toString('utf8').endsWith(head), true, 'the boundary cuts the word where planned');
  return { line, planted: { word, head, tail } };
}

function hits(db: Db, query: string): number {
  return search(db, { query, filters: {}, limit: 50 }).hits.length;
}

describe('words cut by chunk boundaries', () => {
  const planted: Planted[] = [];
  let lastWord = '';
  let db: Db;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    const home = tempDir('abh-split-');
    const dir = join(home, '.claude', 'projects', '-home-dev-split-words');
    mkdirSync(dir, { recursive: true });
    const next = prng(0x5eed);
    const ascii = [...'abcdefghijklmnopqrstuvwxyz'];
    const accented = [...'abcdefghijklmnopqrstuvwxyzéüßø'];
    // Each line is its own session file, so every chunk starts at a line start.
    for (const [alphabet, boundary] of [
      [ascii, CHUNK],
      [accented, CHUNK],
      [ascii, 2 * CHUNK],
    ] as const) {
      for (let cut = 1; cut < WORD_CHARS; cut++) {
        const session = randomUUID();
        const { line, planted: p } = lineAcross(session, randomWord(next, alphabet), cut, boundary);
        writeFileSync(join(dir, `${session}.jsonl`), line);
        planted.push(p);
      }
    }
    // A word of 3-byte letters cut 270 bytes in: the last CARRY_MAX (256) bytes of the chunk start inside a letter.
    const longSession = randomUUID();
    writeFileSync(join(dir, `${longSession}.jsonl`), lineAcross(longSession, '東京'.repeat(50), 90, CHUNK).line);
    // An unfinished last line (no newline, nothing after it yet) longer than a chunk.
    const session = randomUUID();
    lastWord = randomWord(next, ascii);
    const unfinished = JSON.stringify({ type: 'user', sessionId: session, cwd: CWD, uuid: randomUUID(), timestamp: '2026-03-01T10:00:00.000Z', message: { role: 'user', content: `${' '.repeat(CHUNK)} ${lastWord}` } }).slice(0, -3);
    assert.ok(unfinished.endsWith(lastWord));
    writeFileSync(join(dir, `${session}.jsonl`), unfinished);

    env = envFor(home);
    const run = await cli(['ingest', '--once'], env);
    assert.equal(run.code, 0, run.stderr);
    const opened = openReader(resolvePaths(env).historyDb);
    assert.ok(opened !== null);
    db = opened;
  });

  test('the whole word is one hit at every cut position', () => {
    for (const p of planted) assert.equal(hits(db, p.word), 1, `${p.head}|${p.tail}`);
  });

  test('neither half of a cut word is a hit of its own', () => {
    for (const p of planted) {
      // Halves of one or two letters can be tokens of other text; longer ones are unique.
      if ([...p.head].length >= 3) assert.equal(hits(db, p.head), 0, `head ${p.head}|${p.tail}`);
      if ([...p.tail].length >= 3) assert.equal(hits(db, p.tail), 0, `tail ${p.head}|${p.tail}`);
    }
  });

  test('the last word of an unfinished last line is findable', () => {
    assert.equal(hits(db, lastWord), 1);
  });

  // Last: it rebuilds the documents this file's other tests read.
  test('reindex rebuilds exactly the captured documents, also where a carry starts inside a letter', async () => {
    const documents = () => db.prepare(documentsWithText(db, 'd.id, d.kind, d.agent, d.at', 'ORDER BY d.id')).all();
    const captured = documents();
    assert.ok(captured.some((d) => String((d as { body: string }).body).includes('東京東京')), 'the long word was captured');
    const run = await cli(['reindex'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(documents(), captured);
  });
});
