// Settings through the real CLI: `agent-bridge settings` shows each effective
// value with its layer, `--watch` reloads edits in a running process, and an
// invalid config.json is reported (file, field, reason) by every command that
// reads it (ingest --once, reindex, status, serve) while the last good or
// default settings stay in force.

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ConfigProblem } from '../protocols/settings.ts';
import type { OnceSummary } from '../protocols/service.ts';
import type { ResolvedSettings } from '../src/config/resolve-settings.ts';
import type { StatusReport } from '../src/cli/commands/status.ts';
import { cli, envFor, spawnCli, tempDir } from './helpers/home.ts';
import { settingsWorld, withoutSettingsEnv, writeConfig } from './helpers/settings.ts';
import { waitFor } from './helpers/wait.ts';

function collect(child: ChildProcess): { stdout: () => string; stderr: () => string; exited: Promise<number | null> } {
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  return { stdout: () => out, stderr: () => err, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

/** A bridge home with one small Claude Code transcript to capture. */
function homeWithTranscript(): { home: string; env: NodeJS.ProcessEnv; config: string; bytes: number } {
  const home = tempDir('abh-settings-cli-');
  const dir = join(home, '.claude', 'projects', '-work-app');
  mkdirSync(dir, { recursive: true });
  const session = '6f1d2c3b-0a4e-4b5f-8c9d-112233445566';
  const line = (n: number): string =>
    `${JSON.stringify({ type: 'user', sessionId: session, uuid: `00000000-0000-4000-8000-00000000000${n}`, cwd: '/work/app', timestamp: '2025-01-01T00:00:00Z', message: { role: 'user', content: `settingsotter line ${n}` } })}\n`;
  const body = line(1) + line(2);
  writeFileSync(join(dir, `${session}.jsonl`), body);
  return { home, env: withoutSettingsEnv(envFor(home)), config: join(home, '.agent-bridge', 'config.json'), bytes: Buffer.byteLength(body) };
}

const INVALID = { history: { ingest: 'yes please' }, lingerSec: 'soon', colour: 'blue' };

function expectedProblems(config: string): Array<Pick<ConfigProblem, 'severity' | 'file' | 'field'>> {
  return [
    { severity: 'error', file: config, field: 'history.ingest' },
    { severity: 'error', file: config, field: 'lingerSec' },
    { severity: 'warning', file: config, field: 'colour' },
  ];
}

function assertReported(stderr: string, config: string): void {
  assert.ok(stderr.includes(`agent-bridge: config error: ${config}: history.ingest: must be true or false, got "yes please"; the last good or default value stays in force`), stderr);
  assert.ok(stderr.includes(`agent-bridge: config error: ${config}: lingerSec: must be a whole number of seconds from 0 to 3600 (0 disables), got "soon"`), stderr);
  assert.ok(stderr.includes(`agent-bridge: config warning: ${config}: colour: unknown field; ignored`), stderr);
  assert.doesNotMatch(stderr, /at .*\.ts:\d+|INTERNAL/, 'no stack trace');
}

describe('agent-bridge settings', () => {
  it('shows every effective value with its layer, as text and as JSON', async () => {
    const world = settingsWorld();
    const env = { ...withoutSettingsEnv(process.env), ...world.env, AGENT_BRIDGE_MAX_HOPS: '3' };
    writeConfig(world.globalFile, { codexModel: 'g-model', lingerSec: 40, codex: { delivery: 'hooks' } });
    writeConfig(world.projectFile, { native_subagents: false, codex: { codexModel: 'pa-model' }, resourceSlots: { gpu: 1 } });
    const json = await cli(['settings', '--json', '--project', world.sub, '--agent', 'codex'], env);
    assert.equal(json.code, 0, json.stderr);
    const settings = JSON.parse(json.stdout.toString('utf8')) as ResolvedSettings;
    assert.equal(settings.project, world.main);
    assert.deepEqual(settings.files, { global: world.globalFile, project: world.projectFile });
    const pick = (name: keyof ResolvedSettings['values']): unknown[] => [settings.values[name].value, settings.values[name].layer, settings.values[name].key];
    assert.deepEqual(pick('codexModel'), ['pa-model', 'project-agent', 'codex.codexModel']);
    assert.deepEqual(pick('codexSubagents'), [0, 'project', 'native_subagents']);
    assert.deepEqual(pick('delivery'), ['hooks', 'global-agent', 'codex.delivery']);
    assert.deepEqual(pick('lingerSec'), [40, 'global', 'lingerSec']);
    assert.deepEqual(pick('maxHops'), [3, 'env', 'AGENT_BRIDGE_MAX_HOPS']);
    assert.deepEqual(pick('wakeOnDirect'), [true, 'default', null]);
    assert.deepEqual(settings.problems.map((p) => [p.severity, p.file, p.field]), [['warning', world.projectFile, 'resourceSlots']]);

    // Text, from inside the linked worktree (the default project is the current directory).
    const text = await cli(['settings', '--agent', 'codex'], env, world.sub);
    assert.equal(text.code, 0, text.stderr);
    const out = text.stdout.toString('utf8');
    assert.match(out, new RegExp(`^project: +${world.main} \\(contains ${world.sub}\\)$`, 'm'));
    assert.match(out, /^codexModel +"pa-model" +project agent section: codex\.codexModel$/m);
    assert.match(out, /^codexSubagents +0 +project: native_subagents$/m);
    assert.match(out, /^maxHops +3 +environment: AGENT_BRIDGE_MAX_HOPS$/m);
    assert.match(out, /^wakeOnDirect +true +default$/m);
    assert.ok(out.includes(`warning: ${world.projectFile}: resourceSlots: shared machine resource-slot capacities are global`), out);

    const missing = await cli(['settings', '--project', join(world.main, 'nope')], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /--project .*nope: no such file or directory/);
  });

  it('--watch reloads edits in the running process and falls back when the project file is deleted', async () => {
    const world = settingsWorld();
    writeConfig(world.globalFile, { codexModel: 'g-1' });
    const child = spawnCli(['settings', '--watch', '--json', '--project', world.sub, '--agent', 'codex'], { ...withoutSettingsEnv(process.env), ...world.env });
    const io = collect(child);
    const lines = (): ResolvedSettings[] =>
      io
        .stdout()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as ResolvedSettings);
    const seen = (count: number): Promise<ResolvedSettings> => waitFor(() => `settings line ${count} (stderr: ${io.stderr()})`, () => lines()[count - 1] ?? null);
    try {
      assert.equal((await seen(1)).values.codexModel.value, 'g-1');
      writeConfig(world.projectFile, { codex: { codexModel: 'pa-1' } });
      const edited = await seen(2);
      assert.deepEqual([edited.values.codexModel.value, edited.values.codexModel.layer], ['pa-1', 'project-agent']);
      writeConfig(world.projectFile, { codex: { codexModel: 'pa 2' } });
      const invalid = await seen(3);
      assert.deepEqual([invalid.values.codexModel.value, invalid.values.codexModel.lastGood], ['pa-1', true], 'the last good value stays in force');
      assert.deepEqual(invalid.problems.map((p) => [p.severity, p.field]), [['error', 'codex.codexModel']]);
      rmSync(world.projectFile);
      const deleted = await seen(4);
      assert.deepEqual([deleted.values.codexModel.value, deleted.values.codexModel.layer, deleted.problems], ['g-1', 'global', []]);
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await io.exited, 0);
  });
});

describe('an invalid config.json is reported by every command that reads it', () => {
  it('ingest --once, reindex and status name file, field and reason; capture runs with the defaults in force', async () => {
    const { env, config, bytes } = homeWithTranscript();
    writeConfig(config, INVALID);
    const ingest = await cli(['ingest', '--once', '--json'], env);
    assert.equal(ingest.code, 0, ingest.stderr);
    assertReported(ingest.stderr, config);
    const summary = JSON.parse(ingest.stdout.toString('utf8')) as OnceSummary;
    assert.deepEqual([summary.rawBytes, summary.documents], [bytes, 2], 'history.ingest is invalid: its default (on) is in force, the whole transcript is captured');
    assert.deepEqual(summary.status.config.problems.map((p) => ({ severity: p.severity, file: p.file, field: p.field })), expectedProblems(config));

    const reindex = await cli(['reindex'], env);
    assert.equal(reindex.code, 0, reindex.stderr);
    assertReported(reindex.stderr, config);

    const json = await cli(['status', '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    assertReported(json.stderr, config);
    const report = JSON.parse(json.stdout.toString('utf8')) as StatusReport;
    assert.equal(report.config.file, config);
    assert.deepEqual(report.config.problems.map((p) => ({ severity: p.severity, file: p.file, field: p.field })), expectedProblems(config));
    assert.equal(report.counts?.rawBytes, bytes);

    const text = await cli(['status'], env);
    assert.equal(text.code, 0, text.stderr);
    const out = text.stdout.toString('utf8');
    assert.ok(out.includes(`config:  error: ${config}: lingerSec: must be a whole number of seconds from 0 to 3600 (0 disables), got "soon"; the last good or default value stays in force`), out);
    assert.ok(out.includes(`config:  warning: ${config}: colour: unknown field; ignored`), out);
  });

  it('serve reports problems at start and when an edit brings new ones; the last good switch stays in force; status shows the service\'s view', async () => {
    const { env, config } = homeWithTranscript();
    writeConfig(config, { history: { ingest: false } });
    const child = spawnCli(['serve', '--no-dashboard'], env);
    const io = collect(child);
    try {
      const status = async (): Promise<StatusReport> => JSON.parse((await cli(['status', '--json'], env)).stdout.toString('utf8')) as StatusReport;
      await waitFor(() => `the config pause (stderr: ${io.stderr()})`, async () => ((await status()).service?.pausedBy.includes('config') === true ? true : null));

      writeConfig(config, '{"history": {"ingest": tru');
      await waitFor(() => `serve reporting the broken file (stderr: ${io.stderr()})`, () => (io.stderr().includes(`agent-bridge: config error: ${config}: not valid JSON`) ? true : null));
      const live = await waitFor('the service status with the problem', async () => {
        const s = await status();
        return s.service !== null && s.service.config.problems.length > 0 ? s : null;
      });
      assert.deepEqual(live.service?.config.problems.map((p) => [p.severity, p.file, p.field]), [['error', config, '']]);
      assert.ok(live.service?.pausedBy.includes('config'), 'the last good switch (off) stays in force');
      assert.equal(live.counts?.records, 0, 'nothing captured while switched off');

      writeConfig(config, INVALID);
      await waitFor(() => `serve reporting the new problems (stderr: ${io.stderr()})`, () => (io.stderr().includes(`${config}: lingerSec: must be`) && io.stderr().includes(`${config}: colour: unknown field`) ? true : null));
      assertReported(io.stderr(), config);
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await io.exited, 0, io.stderr());
  });
});
