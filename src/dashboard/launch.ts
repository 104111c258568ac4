// How the command line starts the dashboard: flags over config.json's
// `history.dashboard` over the defaults; the first line printed is the
// address to open (it carries the token once).

import { existsSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import type { HistoryPaths } from '../config/paths.ts';
import { DEFAULT_SETTINGS, parseConfig, type HistorySettings } from '../config/settings.ts';
import { DEFAULT_HOST, DEFAULT_PORT } from './host.ts';

export function dashboardSettings(paths: HistoryPaths): HistorySettings['dashboard'] {
  if (!existsSync(paths.configJson)) return DEFAULT_SETTINGS.dashboard;
  return parseConfig(readFileSync(paths.configJson, 'utf8'), paths.configJson).dashboard;
}

export function resolveListen(settings: HistorySettings['dashboard'], flags: { host?: string; port?: number }): { host: string; port: number } {
  return { host: flags.host ?? settings.host ?? DEFAULT_HOST, port: flags.port ?? settings.port ?? DEFAULT_PORT };
}

/** The line that tells the user where the dashboard is: the address alone, so scripts can read it. */
export function urlLine(loginUrl: string): string {
  return `${loginUrl}\n`;
}

/** Open `url` in the desktop's browser (no shell: the URL is one argument). */
export function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => process.stderr.write(`agent-bridge dashboard: could not run ${command}; open the address above yourself\n`));
    child.unref();
  } catch {
    process.stderr.write(`agent-bridge dashboard: could not run ${command}; open the address above yourself\n`);
  }
}
