// `agent-bridge settings [--project P] [--agent A] [--json] [--watch]`: every
// effective setting with the layer it came from (environment, project agent
// section, project, global agent section, global, default), and every problem
// of the two config files. The project is the one containing P (default: the
// current directory), by the same canonical identity capture uses.
// --watch prints again whenever a config file changes (JSON: one object per
// line), until Ctrl-C.

import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { HistoryError } from '../../../protocols/errors.ts';
import { LAYER_NAMES } from '../../../protocols/settings.ts';
import { SETTING_NAMES, SETTINGS_AGENTS } from '../../config/settings-fields.ts';
import { type ResolvedSettings, type ResolvedValue, SettingsResolver } from '../../config/resolve-settings.ts';
import { choiceFlag, parse } from '../args.ts';
import { problemLine } from '../config-report.ts';
import { formatTime, printJson } from '../output.ts';

/** Values longer than this push their origin further right instead of widening every line. */
const VALUE_COLUMN = 24;

function origin(resolved: ResolvedValue<unknown>): string {
  const where = resolved.key === null ? LAYER_NAMES[resolved.layer] : `${LAYER_NAMES[resolved.layer]}: ${resolved.key}`;
  return resolved.lastGood ? `${where} (last good value; the file's current one is invalid)` : where;
}

function presence(path: string | null, note: string): string {
  if (path === null) return note;
  return statSync(path, { throwIfNoEntry: false }) === undefined ? `${path} (absent)` : path;
}

function text(settings: ResolvedSettings, asked: string | null): string {
  const lines: string[] = [];
  if (settings.project !== null) lines.push(`project:        ${settings.project}${asked !== null && asked !== settings.project ? ` (contains ${asked})` : ''}`);
  lines.push(`agent:          ${settings.agent ?? '(none: no agent section applies; use --agent)'}`);
  lines.push(`global config:  ${presence(settings.files.global, '')}`);
  if (settings.project !== null) lines.push(`project config: ${presence(settings.files.project, 'none (the project folder is the bridge home)')}`);
  lines.push('');
  const width = Math.max(...SETTING_NAMES.map((name) => name.length));
  const shown = SETTING_NAMES.map((name) => JSON.stringify(settings.values[name].value));
  const valueWidth = Math.min(VALUE_COLUMN, Math.max(...shown.map((value) => value.length)));
  SETTING_NAMES.forEach((name, i) => {
    lines.push(`${name.padEnd(width)}  ${(shown[i] as string).padEnd(valueWidth)}  ${origin(settings.values[name])}`);
  });
  if (settings.problems.length > 0) {
    lines.push('', 'problems:');
    for (const problem of settings.problems) lines.push(`  ${problemLine(problem)}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function settings(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { project: { type: 'string' }, agent: { type: 'string' }, json: { type: 'boolean' }, watch: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  const agent = choiceFlag(flags.agent, 'agent', SETTINGS_AGENTS) ?? null;
  const asked = resolve(flags.project ?? process.cwd());
  if (statSync(asked, { throwIfNoEntry: false }) === undefined) throw new HistoryError('BAD_INPUT', `--project ${flags.project ?? asked}: no such file or directory`);
  const resolver = new SettingsResolver();
  const show = (resolved: ResolvedSettings): void => {
    if (flags.json === true && flags.watch === true) process.stdout.write(`${JSON.stringify(resolved)}\n`);
    else if (flags.json === true) printJson(resolved);
    else process.stdout.write(text(resolved, asked));
  };
  if (flags.watch !== true) {
    show(resolver.resolve(asked, agent));
    return 0;
  }
  let first = true;
  const stop = resolver.watch(asked, agent, (resolved) => {
    if (!first && flags.json !== true) process.stdout.write(`\n--- changed at ${formatTime(Date.now())}\n`);
    first = false;
    show(resolved);
  });
  // The watcher's timer does not keep a process alive (a broker embeds it); this command must stay until Ctrl-C.
  const hold = setInterval(() => undefined, 60_000);
  await new Promise<void>((done) => {
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
  clearInterval(hold);
  stop();
  return 0;
}
