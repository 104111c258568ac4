// bench/idle: what an idle `serve` costs. Starts `agent-bridge serve` of one
// or more checkouts on a home that is already captured (`ingest --once`
// first), waits for it to catch up, then reads the process's CPU time
// (utime + stime from /proc/<pid>/stat, all threads) over a window and
// prints it as a percentage of one core. Give several `--repo` paths (for
// example a worktree of the previous commit) to get their figures in the
// same run, one after the other, on the same home; the first is the baseline
// of the printed ratio. Not part of `npm test`; Linux only.
//
//   node --import tsx bench/idle.ts --home <captured home> [--repo DIR]... [--warm 90] [--seconds 60] [--no-scrub]

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    home: { type: 'string' },
    repo: { type: 'string', multiple: true },
    warm: { type: 'string', default: '90' },
    seconds: { type: 'string', default: '60' },
    'no-scrub': { type: 'boolean', default: false },
  },
});
if (values.home === undefined) throw new Error('--home <captured home> is required');
const home = resolve(values.home);
const repos = (values.repo ?? [process.cwd()]).map((r) => resolve(r));
const warmMs = Number(values.warm) * 1000;
const windowMs = Number(values.seconds) * 1000;
const ticks = 100; // USER_HZ on Linux

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function measure(repo: string): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const key of ['AGENT_BRIDGE_HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB']) delete env[key];
  // The idle scrubber's sweeps are paced work of their own (4 MiB/s by default); --no-scrub leaves them out.
  if (values['no-scrub'] === true) env.AGENT_BRIDGE_HISTORY_SCRUB_BYTES_PER_SECOND = '0';
  const child = spawn(join(repo, 'bin', 'agent-bridge'), ['serve', '--no-dashboard'], { env, stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  try {
    await sleep(warmMs);
    const pid = child.pid as number;
    const before = cpuTicks(pid);
    const started = performance.now();
    await sleep(windowMs);
    const used = (cpuTicks(pid) - before) / ticks;
    return (100 * used * 1000) / (performance.now() - started);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const figures: number[] = [];
for (const repo of repos) {
  const percent = await measure(repo);
  figures.push(percent);
  const base = figures[0] as number;
  console.log(`${repo}: ${percent.toFixed(2)} % of a core over ${values.seconds} s idle (after ${values.warm} s)${figures.length > 1 ? `, ${(percent / base).toFixed(2)} × the first` : ''}`);
}
