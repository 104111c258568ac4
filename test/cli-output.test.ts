// What the CLI prints, as a user piping it sees it: a reader that stops early
// (`| head`) ends the command quietly; `ingest --once --json` reports the
// store's real counts; `conversation --json` with and without `--raw`;
// `sources` lists every retained generation with its bytes and capture times.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { cli, cliJson, cliPath, envFor, tempDir } from './helpers/home.ts';
import { type FixtureHome, fixtureHome } from './helpers/search-homes.ts';
import { withStore } from './helpers/store.ts';

interface Source {
  id: string;
  path: string;
  conversation: string;
  generation: number;
  offset: number;
  generations: Array<{ generation: number; bytes: number; firstCapturedAt: number | null; lastCapturedAt: number | null }>;
}

/** Run the CLI, read its first bytes of stdout, then close the pipe (what `| head -c 100` does). */
function closeEarly(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; signal: string | null; stderr: string; got: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let got = 0;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.stdout.once('data', (d: Buffer) => {
      got = d.length;
      child.stdout.destroy();
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr, got }));
  });
}

/** A new home with one Claude transcript (not written yet): its env, path, and a line maker. */
function oneTranscript(): { env: NodeJS.ProcessEnv; home: string; path: string; session: string; line: (text: string) => string } {
  const home = tempDir();
  const dir = join(home, '.claude', 'projects', '-work-cli');
  mkdirSync(dir, { recursive: true });
  const session = randomUUID();
  const line = (text: string): string => `${JSON.stringify({ type: 'user', message: { role: 'user', content: text }, cwd: '/work/cli', sessionId: session, uuid: randomUUID(), timestamp: '2026-11-01T10:00:00.000Z' })}\n`;
  return { env: envFor(home), home, path: join(dir, `${session}.jsonl`), session, line };
}

describe('CLI output', () => {
  let fixture: FixtureHome;
  let sources: Source[];
  let big: Source;

  before(async () => {
    fixture = await fixtureHome({ fts: true });
    sources = await cliJson<Source[]>(['sources', '--json'], fixture.env);
    big = sources.find((s) => s.path.endsWith('.jsonl') && s.offset > 300 * 1024) as Source;
    assert.ok(big !== undefined, 'the fixture has a transcript larger than 300 KiB');
  });

  it('a reader that closes the pipe early ends every command quietly: exit 0, no stack trace', async () => {
    const commands = [
      ['conversation', big.conversation, '--all', '--json'],
      ['conversation', big.conversation, '--all', '--json', '--raw'],
      ['conversation', big.conversation, '--all', '--raw'],
      ['conversation', big.conversation, '--all'],
      ['raw', big.id],
    ];
    // Each writes at least the conversation's 300 KiB of bytes (as bytes, text, JSON or base64): far more
    // than a pipe buffer holds, so it is still writing when the pipe closes.
    for (const args of commands) {
      const result = await closeEarly(args, fixture.env);
      assert.ok(result.got > 0, `${args.join(' ')}: some output arrived`);
      assert.equal(result.stderr, '', `${args.join(' ')}: nothing on stderr`);
      assert.equal(result.code, 0, `${args.join(' ')}: exit code`);
    }
  });

  it('conversation --json prints text without bytes; --json --raw adds the exact bytes as base64', async () => {
    const plain = await cli(['conversation', big.conversation, '--all', '--json'], fixture.env);
    const withRaw = await cli(['conversation', big.conversation, '--all', '--json', '--raw'], fixture.env);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(withRaw.code, 0, withRaw.stderr);
    type Page = { records: Array<{ id: number; source: string; generation: number; offset: number; text: string; raw?: string }>; next: number | null };
    const pages = (out: Buffer): Page[] => out.toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as Page);
    const plainRecords = pages(plain.stdout).flatMap((p) => p.records);
    const rawRecords = pages(withRaw.stdout).flatMap((p) => p.records);
    assert.ok(plainRecords.length > 3);
    assert.ok(plainRecords.every((r) => !('raw' in r)), 'no raw field without --raw');
    assert.deepEqual(
      rawRecords.map((r) => r.id),
      plainRecords.map((r) => r.id),
    );
    const own = rawRecords.filter((r) => r.source === big.id && r.generation === big.generation).sort((a, b) => a.offset - b.offset);
    const bytes = Buffer.concat(own.map((r) => Buffer.from(r.raw as string, 'base64')));
    assert.ok(bytes.equals(readFileSync(big.path)), 'the base64 bytes of the file source rebuild the file');
    for (const r of rawRecords) assert.equal(r.text, new TextDecoder().decode(Buffer.from(r.raw as string, 'base64')));
  });

  it('ingest --once --json reports the counts of the store it leaves, next to what it captured', async () => {
    const { env, home, path, line } = oneTranscript();
    const lines = ['alpha', 'beta', 'gamma'].map((w) => line(`word ${w}`));
    writeFileSync(path, lines.join(''));
    const summary = await cliJson<{ records: number; documents: number; rawBytes: number; status: { counts: Record<string, number> } }>(['ingest', '--once', '--pace', 'max', '--json'], env);
    const stored = withStore(home, (db) => ({
      sources: db.prepare('SELECT count(*) FROM conversation_sources').pluck().get() as number,
      conversations: db.prepare('SELECT count(*) FROM conversations').pluck().get() as number,
      records: db.prepare('SELECT count(*) FROM conversation_records').pluck().get() as number,
      documents: db.prepare('SELECT count(*) FROM history_documents').pluck().get() as number,
      rawBytes: db.prepare('SELECT sum(length(raw)) FROM conversation_records').pluck().get() as number,
    }));
    assert.ok(summary.records > 0);
    assert.deepEqual(summary.status.counts, stored);
    assert.equal(stored.documents, 3);
    assert.equal(stored.rawBytes, lines.join('').length);
  });

  it('sources lists every retained generation: bytes and capture times, in JSON and as text', async () => {
    const { env, path, session, line } = oneTranscript();
    const first = line('first one') + line('first two') + line('first three');
    writeFileSync(path, first);
    const started = Date.now();
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    const truncated = line('after truncation');
    writeFileSync(path, truncated);
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    const ended = Date.now();

    const listed = (await cliJson<Source[]>(['sources', '--json'], env)).find((s) => s.path === path) as Source;
    assert.equal(listed.generation, 1);
    assert.deepEqual(
      listed.generations.map((g) => [g.generation, g.bytes]),
      [
        [0, Buffer.byteLength(first)],
        [1, Buffer.byteLength(truncated)],
      ],
    );
    for (const g of listed.generations) {
      assert.ok(g.firstCapturedAt !== null && g.lastCapturedAt !== null);
      assert.ok(started - 1000 <= g.firstCapturedAt && g.firstCapturedAt <= g.lastCapturedAt && g.lastCapturedAt <= ended + 1000, 'capture times fall within the runs');
    }
    assert.ok((listed.generations[0]?.lastCapturedAt as number) <= (listed.generations[1]?.firstCapturedAt as number));
    const raw0 = await cli(['raw', path, '--generation', '0'], env);
    assert.equal(raw0.stdout.toString('utf8'), first);

    const text = (await cli(['sources'], env)).stdout.toString('utf8');
    assert.match(text, new RegExp(`g1 .*${session}`));
    assert.match(text, /^\s+g0\s+\S+ B\s+captured /m);
    assert.match(text, /^\s+g1\s+\S+ B\s+captured /m);
  });

  it('a store from before capture times were kept: generations listed (times unknown), and filled when the writer opens it', async () => {
    const { env, home, path, line } = oneTranscript();
    const content = line('older store');
    writeFileSync(path, content);
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    // Make it look like a store written before the table existed.
    const db = new Database(join(home, '.agent-bridge', 'history.db'));
    db.exec('DROP TRIGGER history_generations_insert; DROP TABLE history_generations;');
    db.close();
    const expected = [{ generation: 0, bytes: Buffer.byteLength(content), firstCapturedAt: null, lastCapturedAt: null }];
    const before = (await cliJson<Source[]>(['sources', '--json'], env)).find((s) => s.path === path) as Source;
    assert.deepEqual(before.generations, expected, 'a read-only reader computes them from the records');
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    const after = (await cliJson<Source[]>(['sources', '--json'], env)).find((s) => s.path === path) as Source;
    assert.deepEqual(after.generations, expected, 'the writer filled the table from the records');
    assert.equal(withStore(home, (s) => s.prepare('SELECT count(*) FROM history_generations').pluck().get()), 1);
  });
});
