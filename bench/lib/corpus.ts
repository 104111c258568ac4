// The benchmark corpus: generated once by ../shared/fixtures/make-corpus.mjs
// into a reusable directory outside the repository, and the environment that
// points the product at it. Also enumerates the files the product captures,
// with the product's own discovery walker and source modules, so that the
// baseline works on exactly the bytes the pipeline reads.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileSourceRoots } from '../../src/sources/file-modules.ts';
import { LIMITS } from '../../src/config/limits.ts';
import { resolvePaths } from '../../src/config/paths.ts';
import { DiscoveryWalker } from '../../src/sources/discovery.ts';
import { HeaderCache } from '../../src/sources/header.ts';
import type { SourcePlan } from '../../protocols/sources.ts';

export const REPO = resolve(new URL('../..', import.meta.url).pathname);
export const SHARED = resolve(REPO, '../shared');
const MAKE_CORPUS = join(SHARED, 'fixtures/make-corpus.mjs');
const SQLITE_MODULE = join(REPO, 'node_modules/better-sqlite3');

export interface CorpusSpec {
  readonly dir: string;
  readonly bytes: string;
  readonly hugeLineMb: number;
  readonly hugeFileMb: number;
  /** Top-level sessions (make-corpus derives them from the size when absent). */
  readonly sessions?: number;
}

export function corpusCommand(spec: CorpusSpec): string[] {
  return [
    MAKE_CORPUS, spec.dir, '--bytes', spec.bytes, '--huge-line-mb', String(spec.hugeLineMb), '--huge-file-mb', String(spec.hugeFileMb),
    ...(spec.sessions === undefined ? [] : ['--sessions', String(spec.sessions)]),
    '--sqlite-module', SQLITE_MODULE,
  ];
}

/** Generate the corpus unless a finished one (with its manifest) is already there. */
export function ensureCorpus(spec: CorpusSpec, log: (line: string) => void): { generated: boolean; manifestBytes: number } {
  const manifest = join(spec.dir, 'corpus-manifest.json');
  let generated = false;
  if (!existsSync(manifest)) {
    log(`generating corpus: node ${corpusCommand(spec).join(' ')}`);
    const run = spawnSync(process.execPath, corpusCommand(spec), { stdio: ['ignore', 'ignore', 'inherit'] });
    if (run.status !== 0 || !existsSync(manifest)) throw new Error(`make-corpus failed with status ${run.status}`);
    generated = true;
  }
  const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { totals: { all: { bytes: number } } };
  return { generated, manifestBytes: parsed.totals.all.bytes };
}

/**
 * Environment that makes the product read the corpus and write into
 * `bridgeHome`. OpenCode is left out unless asked for: the baseline is built
 * from the JSONL files (Claude and Codex), so both sides capture the same
 * bytes; XDG_DATA_HOME then names a folder that does not exist. Project
 * mirrors are off unless asked for: these benches measure capture and search
 * alone (bench/mirror.ts measures mirrors against them).
 */
export function corpusEnv(corpus: string, bridgeHome: string, options: { opencode?: boolean; mirrors?: boolean } = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'OPENCODE_DB') env[k] = v;
  return {
    ...env,
    HOME: corpus,
    AGENT_BRIDGE_HOME: bridgeHome,
    CLAUDE_CONFIG_DIR: join(corpus, '.claude'),
    CODEX_HOME: join(corpus, '.codex'),
    XDG_DATA_HOME: options.opencode === true ? join(corpus, '.local/share') : join(bridgeHome, 'no-opencode'),
    ...(options.mirrors === true ? {} : { AGENT_BRIDGE_HISTORY_MIRRORS: 'off' }),
  };
}

export interface CapturedFile {
  readonly plan: SourcePlan;
  readonly size: number;
}

/** Every file the product would capture from the corpus, in discovery order. */
export async function capturedFiles(corpus: string): Promise<CapturedFile[]> {
  const paths = resolvePaths(corpusEnv(corpus, join(corpus, '.agent-bridge-unused')));
  const roots = fileSourceRoots(paths);
  const walker = new DiscoveryWalker(roots, LIMITS.discoveryStepEntries);
  const headers = new HeaderCache(LIMITS.headerCacheEntries);
  const files: CapturedFile[] = [];
  for (;;) {
    const step = await walker.step();
    for (const found of step.files) {
      const plan = await found.module.classify(found, () => headers.read(found.path));
      if (plan !== null) files.push({ plan, size: (await stat(plan.path)).size });
    }
    if (step.passComplete) break;
  }
  await walker.close();
  return files;
}
