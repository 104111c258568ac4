// The dashboard token: 256 random bits, base64url, kept in
// `<bridge home>/dashboard-token` (mode 0600, created once, exclusively, and
// never rewritten). A token file that others can read, or that holds
// anything but a token, is refused with the fix, never used.

import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { HistoryError } from '../../protocols/errors.ts';

export const TOKEN_FILE = 'dashboard-token';
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function tokenPath(bridgeHome: string): string {
  return join(bridgeHome, TOKEN_FILE);
}

function readToken(path: string): string {
  const stat = statSync(path);
  if (!stat.isFile()) throw new HistoryError('CONFIG_INVALID', `${path} is not a regular file; move it away and start the dashboard again`, { path });
  if ((stat.mode & 0o077) !== 0) {
    throw new HistoryError('CONFIG_INVALID', `${path} can be read by other users (mode ${(stat.mode & 0o777).toString(8)}); run: chmod 600 ${path}`, { path });
  }
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
    throw new HistoryError('CONFIG_INVALID', `${path} belongs to another user (uid ${stat.uid}); remove it to get a new token`, { path });
  }
  const token = readFileSync(path, 'utf8').trim();
  if (!TOKEN_PATTERN.test(token)) throw new HistoryError('CONFIG_INVALID', `${path} does not hold a dashboard token; remove it to get a new one`, { path });
  return token;
}

/** The home's token, created (0600) on first use. */
export function ensureToken(bridgeHome: string): string {
  const path = tokenPath(bridgeHome);
  mkdirSync(bridgeHome, { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readToken(path);
    throw new HistoryError('STORE_IO', `cannot create ${path}: ${(error as Error).message}`, { path });
  }
  const token = randomBytes(32).toString('base64url');
  try {
    writeSync(fd, `${token}\n`);
  } finally {
    closeSync(fd);
  }
  return token;
}
