// The bridge home and history.db: present, owned by this user, usable, and
// not open to other users (history.db holds every captured conversation).
// A home of mode 0700 (what the service creates) protects the files in it,
// so a file's own group/other bits only matter when the home is open.

import { constants, type Stats } from 'node:fs';
import { accessSync, statSync } from 'node:fs';
import type { DoctorCheck } from '../../protocols/doctor.ts';
import type { HistoryPaths } from '../config/paths.ts';
import { currentUid, errnoOf, fail, modeText, ok, warn } from './check.ts';

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null;
    throw error;
  }
}

function usable(path: string, mode: number): string | null {
  try {
    accessSync(path, mode);
    return null;
  } catch (error) {
    return errnoOf(error);
  }
}

function foreignOwner(id: string, title: string, path: string, stat: Stats): DoctorCheck | null {
  const uid = currentUid();
  if (uid === null || stat.uid === uid) return null;
  return fail(id, title, `${path} is owned by uid ${stat.uid}, this process runs as uid ${uid}`, `run agent-bridge as its owner, or \`chown -R ${uid} ${path}\``);
}

export function checkHome(paths: HistoryPaths): DoctorCheck[] {
  const id = 'home';
  const title = `bridge home ${paths.bridgeHome}`;
  const stat = statOrNull(paths.bridgeHome);
  if (stat === null) return [ok(id, title, 'not created yet (the service creates it, mode 0700)')];
  if (!stat.isDirectory()) return [fail(id, title, 'exists but is not a directory', `move ${paths.bridgeHome} aside, or point AGENT_BRIDGE_HOME elsewhere`)];
  const foreign = foreignOwner(id, title, paths.bridgeHome, stat);
  if (foreign !== null) return [foreign];
  const denied = usable(paths.bridgeHome, constants.R_OK | constants.W_OK | constants.X_OK);
  if (denied !== null) return [fail(id, title, `cannot be read and written (${denied}, ${modeText(stat.mode)})`, `chmod u+rwx ${paths.bridgeHome}`)];
  if ((stat.mode & 0o077) !== 0) {
    return [warn(id, title, `open to other users (${modeText(stat.mode)}); it holds every captured conversation`, `chmod 700 ${paths.bridgeHome}`)];
  }
  return [ok(id, title, `${modeText(stat.mode)}, owned by this user`)];
}

export function checkHistoryDbFiles(paths: HistoryPaths): DoctorCheck[] {
  const id = 'history-db';
  const title = `history.db permissions`;
  const home = statOrNull(paths.bridgeHome);
  const homeOpen = home !== null && (home.mode & 0o077) !== 0;
  const results: DoctorCheck[] = [];
  for (const path of [paths.historyDb, `${paths.historyDb}-wal`, `${paths.historyDb}-shm`]) {
    const stat = statOrNull(path);
    if (stat === null) continue;
    const foreign = foreignOwner(id, title, path, stat);
    if (foreign !== null) {
      results.push(foreign);
      continue;
    }
    const denied = usable(path, constants.R_OK | constants.W_OK);
    if (denied !== null) results.push(fail(id, title, `${path} cannot be read and written (${denied}, ${modeText(stat.mode)})`, `chmod u+rw ${path}`));
    else if (homeOpen && (stat.mode & 0o044) !== 0) {
      results.push(warn(id, title, `${path} is readable by other users (${modeText(stat.mode)}, and the bridge home is open too)`, `chmod 600 ${path} (or chmod 700 ${paths.bridgeHome})`));
    }
  }
  if (results.length > 0) return results;
  if (statOrNull(paths.historyDb) === null) return [ok(id, title, 'history.db not created yet (the service creates it)')];
  return [ok(id, title, homeOpen ? 'owned by this user, readable only by it' : 'owned by this user, inside a home only this user can enter')];
}
