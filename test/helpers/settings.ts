// A settings world for tests: a bridge home (global config.json) and a real
// Git repository with a linked worktree and a subfolder in it, whose project
// config lives in the main checkout's .agent-bridge/. Tests play the user:
// they write and delete config files; production code only reads them.

import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FIELDS, SETTING_NAMES } from '../../src/config/settings-fields.ts';
import { tempDir } from './home.ts';

export interface SettingsWorld {
  readonly home: string;
  readonly globalFile: string;
  /** The main checkout (physical path): the project's identity. */
  readonly main: string;
  readonly worktree: string;
  /** A folder two levels down in the linked worktree. */
  readonly sub: string;
  readonly projectFile: string;
  /** HOME only: no settings variable of the machine running the tests leaks in. */
  readonly env: NodeJS.ProcessEnv;
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'ignore' });
}

/** The process environment without any variable a setting reads. */
export function withoutSettingsEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of SETTING_NAMES) {
    const variable = FIELDS[name].env;
    if (variable !== undefined) delete out[variable];
  }
  delete out.AGENT_BRIDGE_HOME;
  return out;
}

export function settingsWorld(): SettingsWorld {
  const root = tempDir('abh-settings-');
  const home = join(root, 'home');
  mkdirSync(home);
  const main = join(root, 'repo');
  mkdirSync(main);
  writeFileSync(join(main, 'README'), 'x');
  git(main, 'init', '-q');
  git(main, 'add', '.');
  git(main, 'commit', '-qm', 'init');
  const worktree = join(root, 'repo-feature');
  git(main, 'worktree', 'add', '-q', worktree, '-b', 'feature');
  const sub = join(worktree, 'pkg', 'deep');
  mkdirSync(sub, { recursive: true });
  const physicalMain = realpathSync(main);
  return {
    home,
    globalFile: join(home, '.agent-bridge', 'config.json'),
    main: physicalMain,
    worktree,
    sub,
    projectFile: join(physicalMain, '.agent-bridge', 'config.json'),
    env: { HOME: home },
  };
}

/** Write a config file as a user would (pretty JSON, final newline). */
export function writeConfig(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`);
}
