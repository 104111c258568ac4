// CPU priority of the history worker thread. Ingestion is background work:
// when the machine is short of CPU (two cores, the broker, the agent CLIs and
// our own writer and parser threads), the broker's thread should get a core
// first. On Linux the nice value is per thread and inherited by threads
// created afterwards, so lowering it in the history worker before the parser
// pool starts covers the parser threads too; the broker's thread keeps its
// own. Best effort: elsewhere, or when refused, nothing changes.
//
// AGENT_BRIDGE_HISTORY_NICE=N (0..19, default 10) is added to the thread's
// nice value; 0 keeps the broker's priority.

import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';

const DEFAULT_NICE = 10;

function niceIncrement(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.AGENT_BRIDGE_HISTORY_NICE?.trim();
  if (raw === undefined || raw === '') return DEFAULT_NICE;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 && n <= 19 ? n : DEFAULT_NICE;
}

/**
 * Lower the calling thread's CPU priority; returns its nice value afterwards,
 * or null when unchanged. Never on a process's main thread (the broker's).
 */
export function lowerThreadPriority(env: NodeJS.ProcessEnv = process.env): number | null {
  const increment = niceIncrement(env);
  if (increment === 0 || isMainThread || process.platform !== 'linux') return null;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return null;
    const nice = Math.min(19, getPriority(tid) + increment);
    setPriority(tid, nice);
    return nice;
  } catch {
    return null;
  }
}
