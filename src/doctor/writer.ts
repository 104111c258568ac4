// The writer: its lock file (a live owner, or one left by a process that is
// gone) and whether the live writer is publishing its status.

import { existsSync } from 'node:fs';
import type { DoctorCheck } from '../../protocols/doctor.ts';
import { formatTime } from '../cli/output.ts';
import { inspectLock } from '../store/writer-lock.ts';
import type { DoctorContext } from './check.ts';
import { fail, messageOf, ok, warn } from './check.ts';

export function checkWriterLock(ctx: DoctorContext): DoctorCheck[] {
  const path = ctx.paths.writerLock;
  const title = `writer lock ${path}`;
  const checks: DoctorCheck[] = [];
  let lock;
  try {
    lock = inspectLock(path);
  } catch (error) {
    return [fail('writer-lock', title, `cannot be read: ${messageOf(error)}`, `chmod u+rw ${path}`)];
  }
  switch (lock.state) {
    case 'absent':
      checks.push(ok('writer-lock', title, 'free: no writer is running'));
      break;
    case 'live':
      checks.push(ok('writer-lock', title, `held by the live writer pid ${lock.owner.pid} since ${formatTime(lock.owner.since)}`));
      break;
    case 'stale':
      checks.push(
        warn(
          'writer-lock',
          title,
          `stale: left by pid ${lock.owner.pid} (since ${formatTime(lock.owner.since)}), which is no longer running`,
          'nothing to do by hand: the next writer (`agent-bridge serve`, or the broker) recovers a dead owner\'s lock',
        ),
      );
      break;
    case 'unreadable':
      checks.push(warn('writer-lock', title, 'names no owner (torn or foreign content)', 'the next writer recovers it; if one cannot, remove the file while no agent-bridge process runs'));
      break;
  }
  const recovery = `${path}.recovery`;
  if (existsSync(recovery)) {
    const state = inspectLock(recovery);
    if (state.state !== 'live') checks.push(warn('writer-lock', `lock recovery ${recovery}`, 'left by an interrupted recovery', 'nothing to do by hand: the next writer replaces it'));
  }
  return checks;
}

export function checkService(ctx: DoctorContext): DoctorCheck[] {
  const health = ctx.health;
  const s = health.service;
  const title = 'history service';
  const last = health.errors[0];
  const errors = last === undefined ? '' : `; last error: ${last.code}: ${last.message}`;
  switch (s.state) {
    case 'running':
      return [ok('service', title, `running (pid ${s.pid}, ${health.capture.phase}), status published ${Math.round((s.ageMs ?? 0) / 1000)} s ago${errors}`)];
    case 'starting':
      return [ok('service', title, `starting (pid ${s.pid}), no status published yet`)];
    case 'stale':
      return [
        warn(
          'service',
          title,
          `the writer pid ${s.pid} has not published its status for ${Math.round((s.ageMs ?? 0) / 1000)} s`,
          `if it stays so, stop it (kill -TERM ${s.pid}) and start the service again; its checkpoints are kept`,
        ),
      ];
    case 'disabled':
      return [warn('service', title, 'AGENT_BRIDGE_HISTORY_INGEST switches ingestion off: nothing is captured', 'unset AGENT_BRIDGE_HISTORY_INGEST and restart the broker (or `agent-bridge serve`)')];
    case 'stopped':
      return [warn('service', title, 'not running: nothing is being captured now', 'start `agent-bridge serve` (or the broker, which runs it)')];
  }
}
