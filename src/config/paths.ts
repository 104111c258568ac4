// Where everything lives. One function reads the environment; everything else
// receives a HistoryPaths value, so tests point the whole service at a temp
// home by passing an env object.

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

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

function list(value: string | undefined, fallback: string): string[] {
  const items = (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  return (items.length > 0 ? items : [fallback]).map((p) => resolve(p));
}

export function resolvePaths(env: NodeJS.ProcessEnv = process.env): HistoryPaths {
  const home = resolve(env.HOME && env.HOME !== '' ? env.HOME : homedir());
  const bridgeHome = resolve(env.AGENT_BRIDGE_HOME && env.AGENT_BRIDGE_HOME !== '' ? env.AGENT_BRIDGE_HOME : join(home, '.agent-bridge'));
  const historyDb = join(bridgeHome, 'history.db');
  const opencodeDataDir = join(env.XDG_DATA_HOME && env.XDG_DATA_HOME !== '' ? resolve(env.XDG_DATA_HOME) : join(home, '.local', 'share'), 'opencode');
  const opencodeEnv = env.OPENCODE_DB && env.OPENCODE_DB !== '' ? env.OPENCODE_DB : null;
  return {
    home,
    bridgeHome,
    historyDb,
    bridgeDb: join(bridgeHome, 'bridge.db'),
    archiveDb: join(bridgeHome, 'archive.db'),
    configJson: join(bridgeHome, 'config.json'),
    writerLock: `${historyDb}.lock`,
    claudeRoots: list(env.CLAUDE_CONFIG_DIR, join(home, '.claude')),
    codexRoots: list(env.CODEX_HOME, join(home, '.codex')),
    opencodeDataDir,
    opencodeDb: opencodeEnv === null || opencodeEnv === ':memory:' ? null : resolve(opencodeDataDir, opencodeEnv),
  };
}
