// The command line loads a command's code only when that command runs
// (src/cli/main.ts): `health`, which a broker may poll every second, loads
// neither the dashboard's HTTP stack, the MCP SDK nor the settings' schema
// library, and `ingest` (a capture process) keeps none of the first two. A
// resolve hook in the CLI's own process records every module it imports.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cliPath, envFor, fixtureHome, repoRoot, run, tempDir } from './helpers/home.ts';

const hook = join(repoRoot, 'test', 'scripts', 'trace-imports.mjs');

/** The package a module URL belongs to (the last node_modules folder it is under), or null for our own and node's. */
function packageOf(url: string): string | null {
  const match = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  return match === null ? null : (match[1] as string);
}

/** Run the CLI with `args`: the URL of every module it resolved, the packages they belong to, and its exit. */
async function imports(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; urls: string[]; packages: Set<string>; stderr: string }> {
  const log = join(tempDir('abh-imports-'), 'imports.txt');
  const result = await run(process.execPath, ['--import', hook, cliPath, ...args], { ...env, TRACE_IMPORTS_TO: log });
  assert.ok(existsSync(log), 'the hook recorded the imports');
  const urls = readFileSync(log, 'utf8').split('\n').filter((s) => s !== '');
  const packages = new Set(urls.map(packageOf).filter((p): p is string => p !== null));
  return { code: result.code, urls, packages, stderr: result.stderr };
}

/** Whether the command's own module (commands/<name>.ts, or .js compiled) was imported. */
const ranCommand = (urls: readonly string[], name: string): boolean => urls.some((u) => new RegExp(`/src/cli/commands/${name}\\.(ts|js)$`).test(u));

const HEAVY = ['hono', '@hono/node-server', '@modelcontextprotocol/sdk'];

describe('command modules load on demand', () => {
  const { home } = fixtureHome();
  const env = envFor(home);

  it('health loads neither the HTTP stack, the MCP SDK nor zod; mcp and the dashboard do load theirs', async () => {
    const health = await imports(['health', '--json'], env);
    assert.equal(health.code, 0, health.stderr);
    assert.ok(ranCommand(health.urls, 'health'), 'the hook saw the health command load');
    for (const name of [...HEAVY, 'zod']) assert.ok(!health.packages.has(name), `health imported ${name}`);

    const mcp = await imports(['mcp', '--bogus'], env);
    assert.equal(mcp.code, 2, 'a bad flag is a usage error');
    assert.ok(mcp.packages.has('@modelcontextprotocol/sdk'), 'the mcp command loads the MCP SDK');

    const dashboard = await imports(['dashboard', '--bogus'], env);
    assert.equal(dashboard.code, 2, 'a bad flag is a usage error');
    assert.ok(dashboard.packages.has('hono'), 'the dashboard command loads its HTTP stack');
  });

  it('ingest --once captures without loading the HTTP stack or the MCP SDK in its process', async () => {
    const once = await imports(['ingest', '--once', '--json'], envFor(home, { AGENT_BRIDGE_HOME: join(tempDir(), 'bridge') }));
    assert.equal(once.code, 0, once.stderr);
    assert.ok(ranCommand(once.urls, 'ingest'), 'the hook saw the ingest command load');
    assert.ok(once.packages.has('better-sqlite3'), 'the capture ran: its threads opened the store');
    for (const name of HEAVY) assert.ok(!once.packages.has(name), `ingest imported ${name}`);
  });
});
