// Test homes: temp directories with generated fixtures, and a way to run the
// real CLI against them. Every test gets its own home; nothing depends on the
// machine's real home or on anything outside the repository and ../shared.

import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const sharedDir = resolve(repoRoot, '..', 'shared');
// Real path: the generators run only when invoked by their real path (their main-module check), and ../shared may be a link.
export const fixturesDir = realpathSync(process.env.AGENT_BRIDGE_FIXTURES ?? join(sharedDir, 'fixtures'));
export const sqliteModule = join(repoRoot, 'node_modules', 'better-sqlite3');
export const cliPath = join(repoRoot, 'bin', 'agent-bridge');

const made: string[] = [];
process.on('exit', () => {
  if (process.env.KEEP_TEST_HOMES) return;
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp directory, removed when the test process exits (set KEEP_TEST_HOMES=1 to keep). */
export function tempDir(prefix = 'abh-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** An environment that points every location at `home` and nothing at the real one. */
export function envFor(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, ...extra };
  for (const key of ['AGENT_BRIDGE_HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB', 'AGENT_BRIDGE_HISTORY_INGEST', 'AGENT_BRIDGE_HISTORY_FTS']) {
    if (!(key in extra)) delete env[key];
  }
  return env;
}

export interface FixtureManifest {
  readonly keywords: Record<string, { agent: string; files: Array<{ path: string; linesContaining: number; occurrences: number }> }>;
  readonly files: Array<{ path: string; bytes: number; sha256: string; mtime?: string }>;
  readonly sources: Array<{ path: string; kind: string; largeLines: unknown[]; utf8ChunkSplits: number[]; sessionId?: string; agentId?: string }>;
  readonly claude: { sessions: Array<{ sessionId: string; file: string; children: Array<{ agentId: string; file?: string; parentAgentId?: string | null }> }> };
  readonly codex: { threads: Array<{ threadId: string; file: string; relation: string; nativeParent: string | null }> };
  readonly [key: string]: unknown;
}

/** Write the make-fixtures.mjs home into a new temp dir. */
export function fixtureHome(options: { args?: string[] } = {}): { home: string; manifest: FixtureManifest } {
  const home = tempDir('abh-home-');
  execFileSync(process.execPath, [join(fixturesDir, 'make-fixtures.mjs'), home, '--force', '--sqlite-module', sqliteModule, ...(options.args ?? [])], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { home, manifest: JSON.parse(readFileSync(join(home, 'manifest.json'), 'utf8')) as FixtureManifest };
}

export interface CliResult {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Run `command` to completion, capturing its output (stdout as bytes: `raw` writes binary). */
export function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    execFile(command, [...args], { env, encoding: 'buffer', maxBuffer: 1 << 30, ...(cwd === undefined ? {} : { cwd }) }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : -1;
      if (code === -1) reject(error);
      else resolvePromise({ code, stdout, stderr: stderr.toString('utf8') });
    });
  });
}

/** Run ./bin/agent-bridge with `args` in `env` (and `cwd`). */
export function cli(args: readonly string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<CliResult> {
  return run(process.execPath, [cliPath, ...args], env, cwd);
}

/** Run the CLI and parse its JSON output; fails the test on a non-zero exit. */
export async function cliJson<T>(args: readonly string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await cli(args, env);
  if (result.code !== 0) throw new Error(`agent-bridge ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout.toString('utf8')) as T;
}

export function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(cliPath, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A small deterministic PRNG (mulberry32) for property tests and kill schedules. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
