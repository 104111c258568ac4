// Generated agent-bridge 0.29.x homes for migration tests, from the shared
// fixture generator (fixtures/make-bridge-home.mjs). Each distinct option set
// is generated once per process into a cache folder and copied for each test,
// so every test gets its own fresh home.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturesDir, sqliteModule } from './home.ts';
import type Database from 'better-sqlite3';


export interface TableEntry {
  readonly rows: number;
  readonly sha256?: string;
}

export interface BridgeManifest {
  readonly userVersion: number;
  readonly rows: number;
  readonly databases: {
    readonly 'bridge.db': {
      readonly tables: Record<string, TableEntry>;
      readonly userVersion: number;
      readonly legacyHistoryTables: string[];
      readonly legacyHistoryTablesAbsent: string[];
      readonly legacyHistoryPayloadBytes: number;
      readonly unrelatedPayloadBytes: number;
    };
  };
  readonly keywords: Record<string, { readonly expectIn: string[]; readonly fts: { readonly expected: number; readonly actual: number } }>;
  readonly databaseFiles: Array<{ path: string; sha256: string }>;
}

interface FixtureModule {
  generate(options: Record<string, unknown>): { manifest: BridgeManifest; fails: string[] };
  tableDigest(db: Database.Database, table: string): { rows: number; sha256: string };
  LEGACY_HISTORY_TABLES: string[];
}

let fixtureModule: FixtureModule | null = null;
export async function fixtures(): Promise<FixtureModule> {
  fixtureModule ??= (await import(join(fixturesDir, 'make-bridge-home.mjs'))) as FixtureModule;
  return fixtureModule;
}

export interface HomeOptions {
  readonly userVersion?: 6 | 8;
  readonly rows?: number;
  readonly blobBytes?: number;
  readonly seed?: number;
}

const cache = new Map<string, { dir: string; manifest: BridgeManifest }>();
const cacheRoot = mkdtempSync(join(tmpdir(), 'ab-homes-'));
process.on('exit', () => rmSync(cacheRoot, { recursive: true, force: true }));

export interface TestHome {
  /** The folder holding everything of this test (removed by `cleanup`). */
  readonly root: string;
  /** The bridge home (AGENT_BRIDGE_HOME). */
  readonly home: string;
  readonly manifest: BridgeManifest;
  /** Environment for CLI / service runs against this home. */
  readonly env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** A fresh copy of a generated legacy home. */
export async function legacyHome(options: HomeOptions = {}): Promise<TestHome> {
  const key = JSON.stringify(options);
  let entry = cache.get(key);
  if (entry === undefined) {
    const dir = join(cacheRoot, `home-${cache.size}`);
    const { generate } = await fixtures();
    const { manifest, fails } = generate({ outDir: dir, sqliteModule: sqliteModule, ...options });
    if (fails.length > 0) throw new Error(`fixture self-check failed: ${fails.join('; ')}`);
    entry = { dir, manifest };
    cache.set(key, entry);
  }
  const root = mkdtempSync(join(tmpdir(), 'ab-migration-'));
  const home = join(root, 'bridge-home');
  cpSync(entry.dir, home, { recursive: true });
  return {
    root,
    home,
    manifest: entry.manifest,
    env: { ...process.env, HOME: join(root, 'user'), AGENT_BRIDGE_HOME: home, CLAUDE_CONFIG_DIR: join(root, 'claude'), CODEX_HOME: join(root, 'codex'), XDG_DATA_HOME: join(root, 'xdg') },
    cleanup: () => rmSync(root, { recursive: true, force: true, maxRetries: 5 }),
  };
}
