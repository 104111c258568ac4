// The pieces every doctor check shares: its context and the three ways a
// check ends. Each check is a plain function of the context, so a test can
// call it directly; the command only prints what they return.

import type { DoctorCheck } from '../../protocols/doctor.ts';
import type { HealthStatus } from '../../protocols/health.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { resolvePaths } from '../config/paths.ts';
import { healthStatus } from '../status/health.ts';

export interface DoctorContext {
  readonly paths: HistoryPaths;
  readonly env: NodeJS.ProcessEnv;
  /** The service's status as health shows it, read once for every check. */
  readonly health: HealthStatus;
}

export function doctorContext(env: NodeJS.ProcessEnv = process.env): DoctorContext {
  const paths = resolvePaths(env);
  return { paths, env, health: healthStatus(paths, { env }) };
}

export type Check = (ctx: DoctorContext) => DoctorCheck[] | Promise<DoctorCheck[]>;

export function ok(id: string, title: string, detail: string): DoctorCheck {
  return { id, title, level: 'ok', detail, fix: null };
}

export function warn(id: string, title: string, detail: string, fix: string): DoctorCheck {
  return { id, title, level: 'warn', detail, fix };
}

export function fail(id: string, title: string, detail: string, fix: string): DoctorCheck {
  return { id, title, level: 'fail', detail, fix };
}

export function errnoOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'ERROR';
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** "mode 0644" */
export function modeText(mode: number): string {
  return `mode 0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}

/** This process's uid, or null where the platform has none (Windows). */
export function currentUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}
