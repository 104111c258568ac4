// The command line loads a command's code only when that command runs
// (src/cli/main.ts): `health`, which a broker may poll every second, loads
// neither the dashboard's HTTP stack, the MCP SDK nor the settings' schema
// library, and `ingest` (a capture process) keeps none of the first two. A
// resolve hook in the CLI's own process records every module it imports.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cliPath, envFor, fixtureHome, run, tempDir } from './helpers/home.ts';

const hook = join(import.meta.dirname, 'helpers', 'record-imports.mjs');

/** Run the CLI with `args`; the packages it imported (bare specifiers, by package name) and its exit code. */
async function imports(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; specifiers: string[]; packages: Set<string>; stderr: string }> {
  const log = join(tempDir('abh-imports-'), 'imports.txt');
  const result = await run(process.execPath, ['--import', hook, cliPath, ...args], { ...env, RECORD_IMPORTS_TO: log });
  assert.ok(existsSync(log), 'the hook recorded the imports');
  const specifiers = readFileSync(log, 'utf8').split('\n').filter((s) => s !== '');
  const packages = new Set(
    specifiers.filter((s) => !s.startsWith('.') && !s.startsWith('/') && !s.includes(':')).map((s) => s.split('/').slice(0, s.startsWith('@') ? 2 : 1).join('/')),
  );
  return { code: result.code, specifiers, packages, stderr: result.stderr };
}

/** Whether the command's own module (commands/<name>.ts, or .js compiled) was imported. */
const ranCommand = (specifiers: readonly string[], name: string): boolean => specifiers.some((s) => new RegExp(`commands/${name}\\.(ts|js)$`).test(s));

const HEAVY = ['hono', '@hono/node-server', '@modelcontextprotocol/sdk'];

describe('command modules load on demand', () => {
  const { home } = fixtureHome();
  const env = envFor(home);

  it('health loads neither the HTTP stack, the MCP SDK nor zod; mcp and the dashboard do load theirs', async () => {
    const health = await imports(['health', '--json'], env);
    assert.equal(health.code, 0, health.stderr);
    assert.ok(ranCommand(health.specifiers, 'health'), 'the hook saw the health command load');
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
    assert.ok(ranCommand(once.specifiers, 'ingest'), 'the hook saw the ingest command load');
    assert.ok(once.packages.has('better-sqlite3'), 'the capture ran: its threads opened the store');
    for (const name of HEAVY) assert.ok(!once.packages.has(name), `ingest imported ${name}`);
  });
});
