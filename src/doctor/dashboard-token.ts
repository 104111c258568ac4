// The dashboard's token file (<bridge home>/dashboard-token, created once by
// the dashboard with mode 0600): whoever can read it can read every captured
// conversation through the dashboard, so it must be this user's alone.

import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { DoctorCheck } from '../../protocols/doctor.ts';
import type { HistoryPaths } from '../config/paths.ts';
import type { DoctorContext } from './check.ts';
import { currentUid, errnoOf, fail, modeText, ok } from './check.ts';

export function dashboardTokenPath(paths: HistoryPaths): string {
  return join(paths.bridgeHome, 'dashboard-token');
}

export function checkDashboardToken(ctx: DoctorContext): DoctorCheck[] {
  const path = dashboardTokenPath(ctx.paths);
  const title = `dashboard token ${path}`;
  const renew = `remove ${path}; the dashboard creates a new one (mode 0600) on its next start`;
  let stat;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return [ok('dashboard-token', title, 'not created yet (the dashboard creates it on its first start)')];
    return [fail('dashboard-token', title, `cannot be examined (${errnoOf(error)})`, renew)];
  }
  if (stat.isSymbolicLink()) return [fail('dashboard-token', title, 'is a symbolic link', renew)];
  if (!stat.isFile()) return [fail('dashboard-token', title, 'is not a regular file', renew)];
  const uid = currentUid();
  if (uid !== null && stat.uid !== uid) return [fail('dashboard-token', title, `owned by uid ${stat.uid}, not by this user (uid ${uid})`, renew)];
  if ((stat.mode & 0o077) !== 0) {
    return [fail('dashboard-token', title, `readable by other users (${modeText(stat.mode)}): they could open the dashboard`, `chmod 600 ${path} (and, if others may have read it, ${renew})`)];
  }
  if (stat.size === 0) return [fail('dashboard-token', title, 'is empty', renew)];
  return [ok('dashboard-token', title, `${modeText(stat.mode)}, this user's only`)];
}
