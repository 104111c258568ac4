// What an idle `serve` costs (bench/idle.ts, bench/scale.ts): start
// `agent-bridge serve` of a checkout on a captured home, wait for it to catch
// up, then read the process's CPU time (utime + stime of all threads, from
// /proc/<pid>/task/*/stat) and its threads' voluntary context switches over a
// window, as a percentage of one core and switches a second. Several services
// may be measured at once (each on its own home), so that they share the
// machine's noise. Linux only.

import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

interface Usage {
  readonly ticks: number;
  readonly switches: number;
}

/** CPU ticks and voluntary context switches of every thread of `pid` so far. */
function usage(pid: number): Usage {
  let ticks = 0;
  let switches = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
      switches += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return { ticks, switches };
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

export interface IdleFigures {
  /** Percent of one core the service used over the window. */
  readonly percent: number;
  /** Voluntary context switches a second, all threads. */
  readonly switchesPerSecond: number;
}

function start(options: IdleOptions): { child: ChildProcess; exited: Promise<void> } {
  const env: NodeJS.ProcessEnv = { ...options.env };
  if (options.noScrub) env.AGENT_BRIDGE_HISTORY_SCRUB_BYTES_PER_SECOND = '0';
  const child = spawn(join(options.repo, 'bin', 'agent-bridge'), ['serve', '--no-dashboard'], { env, stdio: 'ignore' });
  return { child, exited: new Promise<void>((r) => child.on('exit', () => r())) };
}

/** Every service started at once, warmed, then measured over the same window (all options share the first's times). */
export async function idleTogether(all: readonly IdleOptions[]): Promise<IdleFigures[]> {
  const first = all[0];
  if (first === undefined) return [];
  const running = all.map(start);
  try {
    await sleep(first.warmMs);
    const pids = running.map((r) => r.child.pid as number);
    const before = pids.map(usage);
    const started = performance.now();
    await sleep(first.windowMs);
    const after = pids.map(usage);
    const seconds = (performance.now() - started) / 1000;
    return after.map((a, i) => {
      const b = before[i] as Usage;
      return { percent: (100 * (a.ticks - b.ticks)) / TICKS_PER_SECOND / seconds, switchesPerSecond: (a.switches - b.switches) / seconds };
    });
  } finally {
    for (const r of running) r.child.kill('SIGTERM');
    await Promise.all(running.map((r) => r.exited));
  }
}

/** Percent of one core the service used over the window. */
export async function idleCpuPercent(options: IdleOptions): Promise<number> {
  const [figures] = await idleTogether([options]);
  return (figures as IdleFigures).percent;
}
