// Homes for the search, conversation and MCP tests, generated from the shared
// fixture scripts and captured through the real CLI (`ingest --once`, a real
// process with its worker threads). Each home is built once per test process
// and only read afterwards (every reader is read-only).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSearchRequest, type SearchRequest } from '../../protocols/search.ts';
import { cli, fixturesDir, run, sqliteModule } from './home.ts';

const root = mkdtempSync(join(tmpdir(), 'ab-search-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

/** Environment for a home: nothing of the real user's home leaks in. */
export function homeEnv(home: string, bridgeHome: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, AGENT_BRIDGE_HOME: bridgeHome, ...extra };
  for (const key of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB']) delete env[key];
  return env;
}

export interface KeywordFile {
  readonly path: string;
  readonly linesContaining: number;
  readonly occurrences: number;
}

export interface FixtureManifest {
  readonly keywords: Record<string, { readonly agent: 'claude' | 'codex' | 'opencode'; readonly description: string; readonly files: KeywordFile[] }>;
  readonly sources: Array<{ readonly path: string; readonly kind: string; readonly bytes: number; readonly largeLines?: unknown[] }>;
  readonly claude: { readonly sessions: Array<{ readonly sessionId: string; readonly file: string; readonly children: Array<{ readonly agentId: string; readonly file?: string }> }> };
}

export interface FixtureHome {
  /** The fake $HOME holding the CLI transcripts. */
  readonly home: string;
  readonly bridgeHome: string;
  readonly env: NodeJS.ProcessEnv;
  readonly manifest: FixtureManifest;
}

let generated: Promise<{ home: string; manifest: FixtureManifest }> | null = null;
const captured = new Map<string, Promise<FixtureHome>>();

async function generate(): Promise<{ home: string; manifest: FixtureManifest }> {
  const home = join(root, 'fixtures');
  const made = await run(process.execPath, [join(fixturesDir, 'make-fixtures.mjs'), home, '--sqlite-module', sqliteModule], { PATH: process.env.PATH });
  if (made.code !== 0) throw new Error(`make-fixtures failed (${made.code}): ${made.stderr}`);
  const { readFile } = await import('node:fs/promises');
  return { home, manifest: JSON.parse(await readFile(join(home, 'manifest.json'), 'utf8')) as FixtureManifest };
}

/**
 * The make-fixtures home captured into its own bridge home. `fts: false`
 * creates the store without FTS5 (AGENT_BRIDGE_HISTORY_FTS=off), so every
 * query is answered by the literal engine.
 */
export function fixtureHome(options: { readonly fts: boolean }): Promise<FixtureHome> {
  const key = options.fts ? 'fts' : 'plain';
  let home = captured.get(key);
  if (home === undefined) {
    home = (async () => {
      generated ??= generate();
      const { home: userHome, manifest } = await generated;
      const bridgeHome = join(root, `bridge-${key}`);
      const env = homeEnv(userHome, bridgeHome, options.fts ? {} : { AGENT_BRIDGE_HISTORY_FTS: 'off' });
      const ingested = await cli(['ingest', '--once', '--pace', 'max'], env);
      if (ingested.code !== 0) throw new Error(`ingest failed (${ingested.code}): ${ingested.stderr}`);
      return { home: userHome, bridgeHome, env: homeEnv(userHome, bridgeHome), manifest };
    })();
    captured.set(key, home);
  }
  return home;
}

/** A legacy 0.29.17 bridge home (bridge.db only, no history.db yet) from make-bridge-home.mjs. */
export async function legacyBridgeHome(): Promise<{ bridgeHome: string; env: NodeJS.ProcessEnv; manifest: Record<string, unknown> }> {
  const bridgeHome = join(root, `legacy-${Math.random().toString(36).slice(2)}`);
  const made = await run(process.execPath, [join(fixturesDir, 'make-bridge-home.mjs'), bridgeHome, '--sqlite-module', sqliteModule], { PATH: process.env.PATH });
  if (made.code !== 0) throw new Error(`make-bridge-home failed (${made.code}): ${made.stderr}`);
  const { readFile } = await import('node:fs/promises');
  const manifest = JSON.parse(await readFile(join(bridgeHome, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  return { bridgeHome, env: homeEnv(join(root, 'legacy-user-home'), bridgeHome), manifest };
}

/** A fresh folder inside this process's search-home root (removed at exit). */
export function searchTempDir(name: string): string {
  return mkdtempSync(join(root, `${name}-`));
}

/** A query make-corpus.mjs planted, with how many lines match it (queries.json). */
export interface PlantedQuery {
  readonly id: string;
  readonly kind: string;
  readonly text: string;
  readonly filters: Record<string, string>;
  readonly expected: { readonly matches: number };
}

export interface CorpusHome {
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  readonly historyDb: string;
  readonly queries: PlantedQuery[];
}

/** A small make-corpus.mjs home (Claude, Codex and OpenCode), captured by `ingest --once`. */
export async function corpusHome(options: { readonly bytes: string; readonly seed: number }): Promise<CorpusHome> {
  const home = searchTempDir('corpus');
  const made = await run(process.execPath, [join(fixturesDir, 'make-corpus.mjs'), home, '--bytes', options.bytes, '--seed', String(options.seed), '--workers', '1', '--sqlite-module', sqliteModule], {
    PATH: process.env.PATH,
  });
  if (made.code !== 0) throw new Error(`make-corpus failed (${made.code}): ${made.stderr}`);
  const env = homeEnv(home, join(home, '.agent-bridge'));
  const ingested = await cli(['ingest', '--once', '--pace', 'max'], env);
  if (ingested.code !== 0) throw new Error(`ingest failed (${ingested.code}): ${ingested.stderr}`);
  const { readFile } = await import('node:fs/promises');
  const queries = (JSON.parse(await readFile(join(home, 'queries.json'), 'utf8')) as { queries: PlantedQuery[] }).queries;
  return { home, env, historyDb: join(home, '.agent-bridge', 'history.db'), queries };
}

/** A validated search request (throws on what search_history would reject). */
export function searchRequest(text: string, filters: Record<string, string>, limit = 50): SearchRequest {
  const parsed = parseSearchRequest({ query: text, filters, limit });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}
