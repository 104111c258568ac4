// The compiled build (bin/build.mjs): bin/agent-bridge runs dist/ only while
// it matches the sources, and the product captures and answers the same
// compiled as from the sources. Built in a copy of the repository's runtime
// parts, so the test never writes the checkout's own dist/.

import assert from 'node:assert/strict';
import { cpSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { DoctorReport } from '../protocols/doctor.ts';
import type { OnceSummary } from '../protocols/service.ts';
import { envFor, fixtureHome, repoRoot, run, tempDir, type CliResult } from './helpers/home.ts';

const root = tempDir('abh-build-');
const bin = (...args: string[]): string[] => [join(root, 'bin', ...args)];

function agentBridge(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return run(process.execPath, [...bin('agent-bridge'), ...args], env);
}

async function json<T>(args: readonly string[], env: NodeJS.ProcessEnv, exitCodes: readonly number[] = [0]): Promise<T> {
  const result = await agentBridge(args, env);
  assert.ok(exitCodes.includes(result.code), `agent-bridge ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout.toString('utf8')) as T;
}

async function codeCheck(env: NodeJS.ProcessEnv): Promise<{ level: string; detail: string }> {
  const report = await json<DoctorReport>(['doctor', '--json'], env, [0, 1]);
  const check = report.checks.find((c) => c.id === 'code');
  assert.ok(check !== undefined, 'doctor reports how the code runs');
  return check;
}

const upToDate = async (): Promise<boolean> => (await run(process.execPath, [...bin('build.mjs'), '--check'], process.env)).code === 0;

describe('compiled build', () => {
  before(async () => {
    for (const part of ['actors', 'protocols', 'src', 'bin', 'package.json', 'tsconfig.json']) cpSync(join(repoRoot, part), join(root, part), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
    assert.equal(await upToDate(), false, 'a copy never built has no dist/');
    const built = await run(process.execPath, bin('build.mjs'), process.env);
    assert.equal(built.code, 0, built.stderr);
    assert.match(built.stderr, /compiled the sources into dist\//);
    assert.equal(await upToDate(), true);
  });

  it('captures, searches and diagnoses through dist/ exactly what the sources do', async () => {
    const { home, manifest } = fixtureHome();
    const keyword = Object.keys(manifest.keywords)[0] as string;
    const outcomes = [];
    for (const mode of ['compiled', 'sources'] as const) {
      const env = envFor(home, { AGENT_BRIDGE_HOME: join(tempDir(), mode), ...(mode === 'sources' ? { AGENT_BRIDGE_FROM_SOURCES: '1' } : {}) });
      const once = await json<OnceSummary>(['ingest', '--once', '--json'], env);
      const search = await json<unknown>(['search', keyword, '--json'], env);
      outcomes.push({ once, search, code: await codeCheck(env) });
    }
    const [compiled, sources] = outcomes as [(typeof outcomes)[0], (typeof outcomes)[0]];
    assert.equal(compiled.code.level, 'ok');
    assert.match(compiled.code.detail, /compiled JavaScript/);
    assert.equal(sources.code.level, 'warn');
    assert.match(sources.code.detail, /TypeScript sources through tsx \(AGENT_BRIDGE_FROM_SOURCES=1/);
    assert.ok(compiled.once.rawBytes > 0);
    assert.equal(compiled.once.rawBytes, sources.once.rawBytes);
    assert.deepEqual(compiled.once.status.counts, sources.once.status.counts);
    assert.deepEqual(compiled.search, sources.search);
  });

  it('an edited or added source runs from the sources until dist/ is built again', async () => {
    const env = envFor(tempDir(), { AGENT_BRIDGE_HOME: join(tempDir(), 'bridge') });
    assert.equal((await codeCheck(env)).level, 'ok');

    const future = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'src', 'cli', 'main.ts'), future, future);
    assert.equal(await upToDate(), false, 'an edited source');
    const stale = await codeCheck(env);
    assert.equal(stale.level, 'warn');
    assert.match(stale.detail, /dist\/ is missing or older than the sources/);

    assert.equal((await run(process.execPath, bin('build.mjs'), process.env)).code, 0);
    assert.equal((await codeCheck(env)).level, 'ok');

    writeFileSync(join(root, 'src', 'added.ts'), 'export const added = 1;\n');
    assert.equal(await upToDate(), false, 'an added source');
    assert.equal((await codeCheck(env)).level, 'warn');
  });
});
