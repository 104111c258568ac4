// Small numeric helpers shared by the bench scripts.

import { readFileSync } from 'node:fs';

export interface Summary {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
  readonly total: number;
}

/** Nearest-rank percentiles over every sample (not a sliding window). */
export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) return { count: 0, p50: 0, p90: 0, p99: 0, max: 0, mean: 0, total: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
  const total = sorted.reduce((a, b) => a + b, 0);
  return { count: sorted.length, p50: at(50), p90: at(90), p99: at(99), max: sorted[sorted.length - 1] as number, mean: total / sorted.length, total };
}

export const MiB = 1024 * 1024;

export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(GiB|MiB|KiB|G|M|K|GB|MB|KB|B)?$/i.exec(text.trim());
  if (m === null) throw new Error(`bad size: ${text}`);
  const n = Number(m[1]);
  const unit = (m[2] ?? 'B').toLowerCase();
  const factor: Record<string, number> = { b: 1, k: 1024, kib: 1024, m: MiB, mib: MiB, g: 1024 * MiB, gib: 1024 * MiB, kb: 1e3, mb: 1e6, gb: 1e9 };
  return Math.round(n * (factor[unit] as number));
}

/** VmHWM / VmRSS of a process from /proc, in bytes (null where /proc is missing). */
export function procMemory(pid: number | 'self' = 'self'): { hwm: number; rss: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
    return { hwm: kb('VmHWM'), rss: kb('VmRSS') };
  } catch {
    return null;
  }
}
