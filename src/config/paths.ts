// Where everything lives. One function reads the environment; everything else
// receives a HistoryPaths value, so tests point the whole service at a temp
// home by passing an env object.
//
// A variable whose value is not valid UTF-8 (src/os/environ.ts) gives source
// roots in the exact `bytes:` form of src/os/byte-paths.ts, so what is under
// them is captured from the real directory. The bridge home cannot be such a
// path (SQLite opens files by UTF-8 name): then every command refuses with an
// error naming the variable, and nothing is created anywhere else.

import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { HistoryError } from '../../protocols/errors.ts';
import { lostEnvBytes } from '../os/environ.ts';
import { childPath, isBytesPath, pathFromBytes } from '../os/byte-paths.ts';

export interface HistoryPaths {
  /** The user's home (HOME). */
  readonly home: string;
  /** The bridge home: AGENT_BRIDGE_HOME or ~/.agent-bridge. */
  readonly bridgeHome: string;
  readonly historyDb: string;
  readonly bridgeDb: string;
  readonly archiveDb: string;
  readonly configJson: string;
  readonly writerLock: string;
  /** CLAUDE_CONFIG_DIR (comma-separated list allowed) or ~/.claude. */
  readonly claudeRoots: readonly string[];
  /** CODEX_HOME (comma-separated list allowed) or ~/.codex. */
  readonly codexRoots: readonly string[];
  /** $XDG_DATA_HOME/opencode or ~/.local/share/opencode. */
  readonly opencodeDataDir: string;
  /** OPENCODE_DB when set (absolute, or relative to the data dir). */
  readonly opencodeDb: string | null;
}

/** An absolute path from bytes that are not valid UTF-8 (relative ones are taken from the working directory). */
function exactPath(bytes: Buffer): string {
  return pathFromBytes(bytes[0] === 0x2f ? bytes : Buffer.concat([Buffer.from(`${process.cwd()}/`), bytes]));
}

/** The variable's value as a path: exact when its string form lost bytes; null when unset or empty. */
function envPath(env: NodeJS.ProcessEnv, name: string): string | null {
  const value = env[name];
  if (value === undefined || value === '') return null;
  const lost = lostEnvBytes(name, value);
  return lost === null ? resolve(value) : exactPath(lost);
}

function list(env: NodeJS.ProcessEnv, name: string, fallback: string): string[] {
  const value = env[name] ?? '';
  const lost = lostEnvBytes(name, value);
  if (lost !== null) {
    const parts: Buffer[] = [];
    for (let start = 0; start <= lost.length; ) {
      const comma = lost.indexOf(0x2c, start);
      const end = comma === -1 ? lost.length : comma;
      const part = lost.subarray(start, end);
      if (part.toString('latin1').trim() !== '') parts.push(part);
      start = end + 1;
    }
    return parts.map((part) => (Buffer.from(part.toString('utf8')).equals(part) ? resolve(part.toString('utf8').trim()) : exactPath(part)));
  }
  const items = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return (items.length > 0 ? items : [fallback]).map((p) => (isBytesPath(p) ? p : resolve(p)));
}

function refuseBridgeHome(variable: string, path: string): never {
  throw new HistoryError(
    'BAD_INPUT',
    `${variable} is not valid UTF-8 (${path}): the history store cannot be opened at that exact path, and agent-bridge writes nowhere else; ${variable === 'AGENT_BRIDGE_HOME' ? 'set AGENT_BRIDGE_HOME to a UTF-8 path' : 'set AGENT_BRIDGE_HOME to a UTF-8 path (or rename the directory)'}`,
    { path },
  );
}

/** OPENCODE_DB, absolute or relative to the data dir, in exact form. */
function opencodeDbPath(dataDir: string, value: string): string {
  const lost = lostEnvBytes('OPENCODE_DB', value);
  if (lost !== null) return lost[0] === 0x2f ? pathFromBytes(lost) : childPath(dataDir, lost);
  return isBytesPath(dataDir) && !isAbsolute(value) ? childPath(dataDir, value) : resolve(dataDir, value);
}

export function resolvePaths(env: NodeJS.ProcessEnv = process.env): HistoryPaths {
  const home = envPath(env, 'HOME') ?? resolve(homedir());
  const customHome = envPath(env, 'AGENT_BRIDGE_HOME');
  if (customHome !== null && isBytesPath(customHome)) refuseBridgeHome('AGENT_BRIDGE_HOME', customHome);
  if (customHome === null && isBytesPath(home)) refuseBridgeHome('HOME', home);
  const bridgeHome = customHome ?? join(home, '.agent-bridge');
  const historyDb = join(bridgeHome, 'history.db');
  const opencodeDataDir = join(envPath(env, 'XDG_DATA_HOME') ?? join(home, '.local', 'share'), 'opencode');
  const opencodeEnv = env.OPENCODE_DB && env.OPENCODE_DB !== '' ? env.OPENCODE_DB : null;
  return {
    home,
    bridgeHome,
    historyDb,
    bridgeDb: join(bridgeHome, 'bridge.db'),
    archiveDb: join(bridgeHome, 'archive.db'),
    configJson: join(bridgeHome, 'config.json'),
    writerLock: `${historyDb}.lock`,
    claudeRoots: list(env, 'CLAUDE_CONFIG_DIR', join(home, '.claude')),
    codexRoots: list(env, 'CODEX_HOME', join(home, '.codex')),
    opencodeDataDir,
    opencodeDb: opencodeEnv === null || opencodeEnv === ':memory:' ? null : opencodeDbPath(opencodeDataDir, opencodeEnv),
  };
}
