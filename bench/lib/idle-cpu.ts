// What an idle `serve` costs (bench/idle.ts, bench/scale.ts): start
// `agent-bridge serve` of a checkout on a captured home, wait for it to catch
// up, then read the process's CPU time (utime + stime of all threads, from
// /proc/<pid>/stat) over a window, as a percentage of one core. Linux only.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface IdleOptions {
  /** The checkout whose bin/agent-bridge runs. */
  readonly repo: string;
  /** The environment of the service: HOME (and the roots it names) point at the captured home. */
  readonly env: NodeJS.ProcessEnv;
  readonly warmMs: number;
  readonly windowMs: number;
  /** Leave out the scrubber's paced sweeps (work of their own, 4 MiB/s by default). */
  readonly noScrub: boolean;
}

/** Percent of one core the service used over the window. */
export async function idleCpuPercent(options: IdleOptions): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...options.env };
  if (options.noScrub) env.AGENT_BRIDGE_HISTORY_SCRUB_BYTES_PER_SECOND = '0';
  const child = spawn(join(options.repo, 'bin', 'agent-bridge'), ['serve', '--no-dashboard'], { env, stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  try {
    await sleep(options.warmMs);
    const pid = child.pid as number;
    const before = cpuTicks(pid);
    const started = performance.now();
    await sleep(options.windowMs);
    const used = (cpuTicks(pid) - before) / TICKS_PER_SECOND;
    return (100 * used * 1000) / (performance.now() - started);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}
