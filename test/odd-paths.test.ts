// Paths that are not valid UTF-8 and entries that are not regular files
// (issue 10 §2). A Latin-1 byte in HOME, in a source root or in a project
// folder: what is under it is captured exactly from the real directory, or,
// where that is impossible (the store under such a HOME), every command
// refuses with a clear error and nothing is created anywhere else. A FIFO and
// a directory named *.jsonl are skipped and said so; a FIFO put where a
// captured transcript was does not hang capture.

import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type CliResult, cli, cliJson, cliPath, envFor, tempDir } from './helpers/home.ts';
import { claudeLine, codexLine } from './helpers/rollouts.ts';
import { withStore } from './helpers/store.ts';

const LATIN1 = Buffer.from('caf\xe9', 'latin1');

/** A path under `dir` whose last component is the Latin-1 bytes c a f 0xE9 (not valid UTF-8). */
function latin1Dir(dir: string): Buffer {
  return Buffer.concat([Buffer.from(`${dir}/`), LATIN1]);
}

/**
 * Run the CLI with HOME set to raw bytes: Node can only pass UTF-8 strings in
 * an environment, so a shell builds the value from an escape.
 */
function cliWithHome(home: Buffer, args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const escaped = [...home].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `HOME="$(printf '${escaped}')" exec "$0" "$@"`, process.execPath, cliPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

describe('paths that are not UTF-8', () => {
  it('refuses a store under a HOME that is not UTF-8, creating nothing anywhere', async () => {
    const root = tempDir();
    const home = latin1Dir(root);
    mkdirSync(home);
    const env = envFor(root);
    delete env.HOME;
    for (const args of [['ingest', '--once'], ['status'], ['search', 'anything']]) {
      const run = await cliWithHome(home, args, env);
      assert.equal(run.code, 1, `${args[0]} fails`);
      assert.match(run.stderr, /HOME is not valid UTF-8 \(bytes:.*caf%E9\).*set AGENT_BRIDGE_HOME/, `${args[0]} says why and what to do`);
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    }
    assert.deepEqual(readdirSync(root, { encoding: 'buffer' }), [LATIN1], 'the temp dir holds only the Latin-1 HOME');
    assert.equal(existsSync(join(root, 'caf\ufffd')), false, 'no directory at the U+FFFD path');
    assert.deepEqual(readdirSync(home), [], 'nothing created under the real HOME either');
  });

  it('captures exactly what is under a HOME and a project folder that are not UTF-8', async () => {
    const root = tempDir();
    const home = latin1Dir(root);
    const bridge = join(root, 'bridge-home');
    const session = randomUUID();
    // A Claude project folder whose name is Latin-1 too, under the Latin-1 HOME.
    const project = Buffer.concat([home, Buffer.from('/.claude/projects/'), LATIN1]);
    mkdirSync(project, { recursive: true });
    const transcript = Buffer.concat([project, Buffer.from(`/${session}.jsonl`)]);
    const text = claudeLine(session, 'latinone pathword') + claudeLine(session, 'second line');
    writeFileSync(transcript, text);
    const rolloutDir = Buffer.concat([home, Buffer.from('/.codex/sessions/2026/01/02')]);
    mkdirSync(rolloutDir, { recursive: true });
    const thread = randomUUID();
    writeFileSync(Buffer.concat([rolloutDir, Buffer.from(`/rollout-2026-01-02T10-00-00-${thread}.jsonl`)]), codexLine('codexword under latin home'));
    const env = envFor(root, { AGENT_BRIDGE_HOME: bridge });
    delete env.HOME;

    const run = await cliWithHome(home, ['ingest', '--once', '--pace', 'max'], env);
    assert.equal(run.code, 0, run.stderr);
    const db = new Database(join(bridge, 'history.db'), { readonly: true });
    try {
      const list = db.prepare('SELECT id, path FROM conversation_sources ORDER BY id').all() as Array<{ id: string; path: string }>;
      assert.equal(list.length, 2, 'both transcripts are sources');
      for (const s of list) assert.match(s.path, /^bytes:.*caf%E9/, 'stored under its exact form');
      const claude = list.find((s) => s.path.endsWith(`${session}.jsonl`));
      assert.ok(claude !== undefined);
      assert.equal(claude.path, `bytes:${root}/caf%E9/.claude/projects/caf%E9/${session}.jsonl`);
      const raw = Buffer.concat((db.prepare('SELECT raw FROM conversation_records WHERE source = ? ORDER BY offset').pluck().all(claude.id) as Buffer[]));
      assert.deepEqual(raw, readFileSync(transcript), 'captured byte for byte');
      const exact = await cli(['raw', claude.id], { ...env, HOME: root });
      assert.deepEqual(exact.stdout, readFileSync(transcript), 'raw gives the bytes back by the exact form of the path');
    } finally {
      db.close();
    }
    const found = await cliJson<{ hits: Array<{ conversation: string }> }>(['search', 'pathword', '--json'], { ...env, HOME: root });
    assert.deepEqual(found.hits.map((h) => h.conversation), [`claude:${session}`]);
    const codex = await cliJson<{ hits: Array<{ conversation: string }> }>(['search', 'codexword', '--json'], { ...env, HOME: root });
    assert.deepEqual(codex.hits.map((h) => h.conversation), [`codex:${thread}`]);
  });

  it('skips a FIFO and a directory named *.jsonl, says so, and is not stopped by a FIFO put where a transcript was', async () => {
    const home = tempDir();
    const env = envFor(home);
    const dir = join(home, '.claude', 'projects', '-work-odd');
    mkdirSync(dir, { recursive: true });
    const kept = randomUUID();
    writeFileSync(join(dir, `${kept}.jsonl`), claudeLine(kept, 'regular file word'));
    const replaced = randomUUID();
    const replacedText = claudeLine(replaced, 'soon a fifo');
    writeFileSync(join(dir, `${replaced}.jsonl`), replacedText);
    execFileSync('mkfifo', [join(dir, `${randomUUID()}.jsonl`)]);
    mkdirSync(join(dir, `${randomUUID()}.jsonl`));
    const first = await cliJson<{ records: number; status: { problems: Array<{ path: string; code: string; message: string }>; discovery: { skipped: number } } }>(['ingest', '--once', '--json'], env);
    assert.equal(first.status.discovery.skipped, 2, 'two entries skipped');
    const messages = first.status.problems.map((p) => p.message);
    assert.ok(messages.some((m) => /is a FIFO, not a regular file; skipped/.test(m)), messages.join('\n'));
    assert.ok(messages.some((m) => /is a directory, not a regular file; skipped/.test(m)), messages.join('\n'));
    const human = await cli(['ingest', '--once'], env);
    assert.match(human.stderr, /is a FIFO, not a regular file; skipped/, 'a human run says so too');

    // The captured transcript replaced by a FIFO: capture completes and says what it is.
    rmSync(join(dir, `${replaced}.jsonl`));
    execFileSync('mkfifo', [join(dir, `${replaced}.jsonl`)]);
    const started = Date.now();
    const again = await cliJson<{ status: { problems: Array<{ path: string; message: string }> } }>(['ingest', '--once', '--json'], env);
    assert.ok(Date.now() - started < 60_000, 'not blocked on the FIFO');
    assert.ok(again.status.problems.some((p) => p.path === join(dir, `${replaced}.jsonl`) && /FIFO/.test(p.message)));
    withStore(home, (db) => {
      const raw = db.prepare("SELECT raw FROM conversation_records WHERE source LIKE ? ORDER BY offset").pluck().all(`%${replaced}.jsonl`) as Buffer[];
      assert.equal(Buffer.concat(raw).toString('utf8'), replacedText, 'its captured bytes stay');
    });
  });
});
