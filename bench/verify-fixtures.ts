// Usage: node --import tsx bench/verify-fixtures.ts [--keep]
//
// The correctness gate for performance changes: generates the fixture home
// (../shared/fixtures/make-fixtures.mjs) into a temp dir, runs
// `./bin/agent-bridge ingest --once --pace max` on it, then checks through
// the CLI that every Claude and Codex file reconstructs byte-exactly
// (`raw <source-id>`, sha256 against the manifest) and that every Claude and
// Codex keyword is found, on as many distinct lines as the manifest counts.
// Exits 1 on any failure. (The test suite checks more; this is the quick
// gate to run before and after a tuning change.)

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO, SHARED } from './lib/corpus.ts';

interface Manifest {
  readonly files: Array<{ path: string; bytes: number; sha256: string }>;
  readonly keywords: Record<string, { agent: string; files: Array<{ path: string; linesContaining: number }> }>;
}

const { values } = parseArgs({ options: { keep: { type: 'boolean', default: false } }, strict: true });
const home = mkdtempSync(join(tmpdir(), 'abh-verify-'));
const cli = join(REPO, 'bin/agent-bridge');
const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
for (const key of ['AGENT_BRIDGE_HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB', 'AGENT_BRIDGE_HISTORY_INGEST', 'AGENT_BRIDGE_HISTORY_FTS']) delete env[key];
const failures: string[] = [];

try {
  execFileSync(process.execPath, [join(SHARED, 'fixtures/make-fixtures.mjs'), home, '--force', '--sqlite-module', join(REPO, 'node_modules/better-sqlite3')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const manifest = JSON.parse(readFileSync(join(home, 'manifest.json'), 'utf8')) as Manifest;
  const ingest = spawnSync(cli, ['ingest', '--once', '--pace', 'max'], { env, encoding: 'utf8' });
  if (ingest.status !== 0) throw new Error(`ingest exited ${ingest.status}: ${ingest.stderr}`);
  process.stdout.write(ingest.stdout);

  const captured = manifest.files.filter(
    (f) => (f.path.startsWith('.claude/projects/') && !f.path.endsWith('sessions-index.json')) || (f.path.startsWith('.codex/') && /rollout-.*\.jsonl$/.test(f.path)),
  );
  for (const file of captured) {
    const raw = spawnSync(cli, ['raw', join(home, file.path)], { env, maxBuffer: 1 << 30 });
    const digest = createHash('sha256').update(raw.stdout).digest('hex');
    if (raw.status !== 0 || raw.stdout.length !== file.bytes || digest !== file.sha256) failures.push(`raw ${file.path}: ${raw.stdout.length} bytes, sha256 ${digest.slice(0, 12)} (want ${file.bytes}, ${file.sha256.slice(0, 12)})`);
  }

  const keywords = Object.entries(manifest.keywords).filter(([, k]) => (k.agent === 'claude' || k.agent === 'codex') && k.files.length > 0);
  for (const [word, info] of keywords) {
    const expected = info.files.reduce((n, f) => n + f.linesContaining, 0);
    const run = spawnSync(cli, ['search', word, '--agent', info.agent, '--limit', '50', '--json'], { env, encoding: 'utf8' });
    if (run.status !== 0) {
      failures.push(`search ${word}: exit ${run.status} ${run.stderr}`);
      continue;
    }
    const hits = (JSON.parse(run.stdout) as { hits: Array<{ conversation: string | null; cursor: string | null }> }).hits;
    const lines = new Set(hits.map((h) => `${h.conversation} ${h.cursor}`));
    if (lines.size !== expected) failures.push(`search ${word} (${info.agent}): ${lines.size} distinct lines, manifest counts ${expected}`);
  }
  process.stdout.write(`${captured.length} files checked through raw (sha256), ${keywords.length} keywords searched\n`);
} catch (error) {
  failures.push(String(error));
} finally {
  if (!values.keep) rmSync(home, { recursive: true, force: true });
  else process.stdout.write(`kept ${home}\n`);
}

for (const f of failures) process.stdout.write(`FAIL ${f}\n`);
process.stdout.write(failures.length === 0 ? 'OK\n' : `${failures.length} failure(s)\n`);
process.exitCode = failures.length === 0 ? 0 : 1;
