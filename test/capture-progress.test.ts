// Capture progress through the CLI during a real capture: `agent-bridge serve`
// on a generated 8 MiB corpus home (pace spec, so the backlog lasts several
// seconds), while `health --json` and `status --json` are polled from other
// processes. Then serve's own output: its start line, every source root with
// its file count, progress lines while the backlog runs, and the caught-up line.

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HealthStatus } from '../protocols/health.ts';
import type { StatusReport } from '../src/cli/commands/status.ts';
import { formatBytes } from '../src/cli/output.ts';
import { cli, cliJson, envFor, fixturesDir, run, spawnCli, tempDir } from './helpers/home.ts';

interface Corpus {
  readonly files: Array<{ path: string; kind: string; bytes: number }>;
}

/** Regular files below `dir` (no links followed), counted by the test itself. */
function countFiles(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) n += countFiles(join(dir, entry.name));
    else if (entry.isFile()) n++;
  }
  return n;
}

describe('capture progress through the CLI during a real capture', () => {
  let home = '';
  let env: NodeJS.ProcessEnv = {};
  let expectedBytes = 0;
  let expectedSources = 0;
  let serve: ChildProcess | null = null;
  let stderr = '';
  const healthSamples: HealthStatus[] = [];
  const statusSamples: StatusReport[] = [];
  let statusText = '';

  before(async () => {
    home = tempDir('abh-progress-');
    const made = await run(process.execPath, [join(fixturesDir, 'make-corpus.mjs'), home, '--bytes', '8MiB', '--mix', 'claude=0.6,codex=0.4', '--force'], { PATH: process.env.PATH });
    assert.equal(made.code, 0, made.stderr);
    const corpus = JSON.parse(readFileSync(join(home, 'corpus-manifest.json'), 'utf8')) as Corpus;
    // Every transcript, subagent, tool result and meta file is a source; the CLIs' index files are not.
    const sources = corpus.files.filter((f) => !/index/.test(f.kind));
    expectedBytes = sources.reduce((n, f) => n + f.bytes, 0);
    expectedSources = sources.length;
    env = envFor(home);
    // The dashboard beside serve is the dashboard's tests' subject (and would want a fixed port).
    serve = spawnCli(['serve', '--no-dashboard', '--progress-every', '1s'], env);
    serve.stderr?.setEncoding('utf8');
    serve.stderr?.on('data', (chunk: string) => {
      stderr += chunk;
    });
    const deadline = Date.now() + 180_000;
    let sawBacklog = false;
    while (Date.now() < deadline) {
      const health = await cliJson<HealthStatus>(['health', '--json'], env);
      healthSamples.push(health);
      if (process.env.DEBUG_PROGRESS) console.log(Date.now(), JSON.stringify(health.capture));
      if (health.capture.since !== null) sawBacklog = true;
      if (sawBacklog && health.capture.since === null && health.capture.last !== null) break;
      if (health.capture.since !== null && statusSamples.length < 3) {
        statusSamples.push(await cliJson<StatusReport>(['status', '--json'], env));
        if (statusText === '') statusText = (await cli(['status'], env)).stdout.toString();
      }
    }
    // Serve reports once a second; give its caught-up line a moment.
    for (let i = 0; i < 50 && !stderr.includes('caught up'); i++) await new Promise((r) => setTimeout(r, 100));
  });

  after(async () => {
    if (serve === null || serve.exitCode !== null) return;
    const exited = new Promise((resolve) => serve?.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  });

  it('health --json shows the running backlog with its percentage, rate and ETA, then caught up', () => {
    const running = healthSamples.filter((h) => h.capture.since !== null);
    assert.ok(running.length > 0, `a sample during the backlog (of ${healthSamples.length})`);
    for (const h of running) {
      assert.equal(h.service.state, 'running');
      assert.ok(h.service.pid === serve?.pid, 'the writer is the serve process');
      assert.ok(h.service.ageMs !== null && h.service.ageMs < 10_000);
      const c = h.capture;
      assert.equal(c.foundBytes, c.capturedBytes + c.backlog.bytes);
      // No percentage while nothing is known in bytes (only the database providers wait, at the start).
      if (c.foundBytes === 0) assert.equal(c.percent, null);
      else assert.ok(c.percent !== null && c.percent >= 0 && c.percent < 100, `percent ${c.percent}`);
      // Once discovery has walked every root, the backlog's size is every source byte of the corpus.
      if (!c.discovering) assert.equal(c.foundBytes, expectedBytes);
    }
    const withEta = running.filter((h) => h.capture.etaSeconds !== null && h.capture.backlog.bytes > 0);
    assert.ok(withEta.length > 0, 'an ETA while bytes were waiting');
    for (const h of withEta) {
      const c = h.capture;
      assert.ok(c.bytesPerSecond > 0);
      // The ETA is the waiting bytes at the measured rate (the rate is published rounded to a byte per second).
      assert.ok(Math.abs((c.etaSeconds as number) - c.backlog.bytes / c.bytesPerSecond) <= 1.01, `eta ${c.etaSeconds} for ${c.backlog.bytes} B at ${c.bytesPerSecond} B/s`);
    }
    const captured = running.map((h) => h.capture.capturedBytes);
    assert.deepEqual(captured, [...captured].sort((a, b) => a - b), 'captured bytes only grow during one backlog');
    const end = healthSamples[healthSamples.length - 1] as HealthStatus;
    assert.equal(end.capture.since, null);
    assert.deepEqual([end.capture.backlog.sources, end.capture.backlog.bytes, end.capture.etaSeconds], [0, 0, 0]);
    assert.equal(end.capture.last?.capturedBytes, expectedBytes, 'the finished backlog captured every source byte');
    assert.ok(end.batches.committed > 0 && end.batches.p99Ms >= end.batches.p50Ms);
    assert.equal(end.migration.phase, 'verified');
    assert.equal(end.store?.sources, expectedSources);
  });

  it('status shows the capture ETA', () => {
    assert.ok(statusSamples.length > 0);
    for (const s of statusSamples) {
      assert.ok(s.service !== null);
      assert.equal(s.service.capture.foundBytes, s.service.capture.capturedBytes + s.service.backlog.bytes);
    }
    assert.match(statusText, /^capture: (\d+\.\d%, .* of .*, (ETA \d|ETA unknown yet)|caught up)/m);
  });

  it('serve prints its state, each source root with its file count, progress lines and the caught-up line', () => {
    const lines = stderr.split('\n');
    assert.match(lines[0] ?? '', new RegExp(`^agent-bridge history: (starting|ingesting|idle) \\(pid ${serve?.pid}, ${join(home, '.agent-bridge', 'history.db')}\\); Ctrl-C stops$`));
    assert.equal(lines[1], 'agent-bridge history: sources:');
    const rootLine = (path: string): string => {
      const line = lines.find((l) => l.startsWith('  ') && l.includes(` ${path} `));
      assert.ok(line !== undefined, `a line for ${path} in\n${stderr}`);
      return line;
    };
    for (const root of [join(home, '.claude', 'projects'), join(home, '.codex', 'sessions'), join(home, '.codex', 'archived_sessions')]) {
      if (!existsSync(root)) {
        assert.match(rootLine(root), /not found$/);
        continue;
      }
      const files = countFiles(root);
      assert.match(rootLine(root), new RegExp(` ${files} files?$`), `${root} holds ${files} files`);
    }
    assert.match(rootLine(join(home, '.agent-bridge', 'runs')), /not found$/);
    assert.match(rootLine(join(home, '.local', 'share', 'opencode')), /no database found$/);
    const progress = lines.filter((l) => l.startsWith('agent-bridge history: backlog '));
    assert.ok(progress.length >= 2, `progress lines every second while the backlog ran:\n${stderr}`);
    for (const line of progress) assert.match(line, /^agent-bridge history: backlog (\d+\.\d%, )?[\d.]+ (B|KiB|MiB) of [\d.]+ (B|KiB|MiB)( found so far)?, .*\(\d+ sources? waiting\)$/);
    assert.ok(progress.some((l) => / ETA \d/.test(l)), 'a progress line with an ETA');
    const caughtUp = lines.filter((l) => l.startsWith('agent-bridge history: caught up'));
    assert.equal(caughtUp.length, 1, `one caught-up line in\n${stderr}`);
    assert.match(caughtUp[0] as string, new RegExp(`^agent-bridge history: caught up: ${formatBytes(expectedBytes).replace('.', '\\.')} captured in (\\d+s|\\d+m\\d\\ds)$`));
  });
});
