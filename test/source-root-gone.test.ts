// A source root that disappears while capturing: a Claude projects folder
// that is a mount and gets unmounted, a Codex sessions folder that is moved
// away (as a deletion looks to us). Nothing captured is lost, status names
// the folder, and capture resumes, in the same generation, when the files are
// back (appends made meanwhile included).

import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { cli, cliJson, envFor, spawnCli, tempDir } from './helpers/home.ts';
import { bindMount, mountAccess, runInMountNamespace, unmount, unmountAll } from './helpers/mounts.ts';
import { waitFor } from './helpers/wait.ts';

interface Live {
  problems: Array<{ path: string; code: string; message: string }>;
  phase: string;
}

async function live(env: NodeJS.ProcessEnv): Promise<Live | null> {
  const run = await cli(['status', '--json'], env);
  return (JSON.parse(run.stdout.toString('utf8')) as { service: Live | null }).service;
}

/** How long the service gets to notice a folder that went or came back. */
const SLOW = { ms: 90_000, everyMs: 500 };

async function rawIs(env: NodeJS.ProcessEnv, source: string, expected: Buffer): Promise<boolean> {
  const raw = await cli(['raw', source, '--generation', '0'], env);
  return raw.code === 0 && raw.stdout.equals(expected);
}

const claudeLine = (word: string): string =>
  `${JSON.stringify({ type: 'user', message: { role: 'user', content: `note ${word}` }, cwd: '/work/roots', sessionId: '11111111-2222-4333-8444-555555555555', uuid: word, timestamp: '2026-11-02T10:00:00.000Z' })}\n`;
const codexLine = (word: string): string => `${JSON.stringify({ timestamp: '2026-11-02T10:00:00.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `note ${word}` }] } })}\n`;

const access = mountAccess();

if (access === 'namespace') {
  it('runs the source-root tests in a user and mount namespace (plain mounts are refused here)', () => {
    const run = runInMountNamespace(fileURLToPath(import.meta.url));
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /# fail 0/);
  });
} else {
  describe('a source root that disappears', () => {
    it('unmounted, then mounted again, and a folder moved away and back: nothing lost, status says so, capture resumes', async () => {
      const home = tempDir();
      const env = envFor(home);
      // Claude's projects folder is a mount of another folder.
      const data = join(tempDir(), 'projects');
      const claudeRoot = join(home, '.claude', 'projects');
      mkdirSync(join(data, '-work-roots'), { recursive: true });
      const claudeFile = join(claudeRoot, '-work-roots', '11111111-2222-4333-8444-555555555555.jsonl');
      writeFileSync(join(data, '-work-roots', '11111111-2222-4333-8444-555555555555.jsonl'), claudeLine('mountedalpha') + claudeLine('mountedbeta'));
      bindMount(data, claudeRoot);
      // Codex's sessions folder is an ordinary folder.
      const sessions = join(home, '.codex', 'sessions');
      const codexFile = join(sessions, '2026', '11', '02', 'rollout-2026-11-02T10-00-00-019e0000-0000-7000-8000-000000000001.jsonl');
      mkdirSync(join(codexFile, '..'), { recursive: true });
      writeFileSync(codexFile, `${JSON.stringify({ timestamp: '2026-11-02T10:00:00.000Z', type: 'session_meta', payload: { id: '019e0000-0000-7000-8000-000000000001', cwd: '/work/roots' } })}\n${codexLine('movedgamma')}`);

      const serve = spawnCli(['serve'], env);
      try {
        const claudeBefore = readFileSync(claudeFile);
        const codexBefore = readFileSync(codexFile);
        await waitFor('the first capture', async () => (await rawIs(env, claudeFile, claudeBefore)) && (await rawIs(env, codexFile, codexBefore)), SLOW);

        // Both roots go away.
        unmount(claudeRoot);
        renameSync(sessions, `${sessions}.away`);
        await waitFor('status to name both folders', async () => {
          const problems = (await live(env))?.problems ?? [];
          return [claudeRoot, sessions].every((root) => problems.some((p) => p.path === root && p.code === 'SOURCE_GONE'));
        }, SLOW);
        const problem = (await live(env))?.problems.find((p) => p.path === claudeRoot);
        assert.match(problem?.message ?? '', /none of the 1 files captured from this folder exist any more.*stays retained.*resumes/);
        // Nothing captured is lost while they are gone.
        assert.ok(await rawIs(env, claudeFile, claudeBefore));
        assert.ok(await rawIs(env, codexFile, codexBefore));
        assert.equal((await cliJson<{ hits: unknown[] }>(['search', 'mountedalpha', '--json'], env)).hits.length, 1);

        // Written to meanwhile, then back.
        appendFileSync(join(data, '-work-roots', '11111111-2222-4333-8444-555555555555.jsonl'), claudeLine('mounteddelta'));
        appendFileSync(join(`${sessions}.away`, '2026', '11', '02', 'rollout-2026-11-02T10-00-00-019e0000-0000-7000-8000-000000000001.jsonl'), codexLine('movedepsilon'));
        bindMount(data, claudeRoot);
        renameSync(`${sessions}.away`, sessions);
        await waitFor('capture to resume in generation 0', async () => (await rawIs(env, claudeFile, readFileSync(claudeFile))) && (await rawIs(env, codexFile, readFileSync(codexFile))), SLOW);
        assert.equal((await cliJson<{ hits: unknown[] }>(['search', 'mounteddelta', '--json'], env)).hits.length, 1);
        assert.equal((await cliJson<{ hits: unknown[] }>(['search', 'movedepsilon', '--json'], env)).hits.length, 1);
        const sources = await cliJson<Array<{ path: string; generation: number }>>(['sources', '--json'], env);
        assert.deepEqual(sources.map((s) => s.generation), [0, 0], 'no new generation');
        await waitFor('the problems to clear', async () => ((await live(env))?.problems ?? []).every((p) => p.code !== 'SOURCE_GONE'), SLOW);
      } finally {
        serve.kill('SIGTERM');
        await new Promise((r) => serve.once('exit', r));
        unmountAll();
      }
    });
  });
}
