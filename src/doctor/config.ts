// config.json (the broker's file; only ever read): valid JSON whose history
// section capture understands. Validation is parseConfig's, the one capture
// applies, so doctor and the service never disagree.

import { readFileSync } from 'node:fs';
import type { DoctorCheck } from '../../protocols/doctor.ts';
import { formatBytes } from '../cli/output.ts';
import { parseConfig } from '../config/settings.ts';
import type { DoctorContext } from './check.ts';
import { errnoOf, fail, messageOf, ok } from './check.ts';

export function checkConfig(ctx: DoctorContext): DoctorCheck[] {
  const path = ctx.paths.configJson;
  const title = `config ${path}`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return [ok('config', title, 'absent: the defaults apply')];
    return [fail('config', title, `cannot be read (${errnoOf(error)})`, `chmod u+r ${path}`)];
  }
  try {
    const settings = parseConfig(text, path);
    const pace = settings.migrationIoBytesPerSecond === null ? 'default migration pace' : `migration pace ${formatBytes(settings.migrationIoBytesPerSecond)}/s`;
    return [ok('config', title, `valid (history.ingest ${settings.ingest ? 'on' : 'off'}, ${pace})`)];
  } catch (error) {
    return [fail('config', title, messageOf(error), `fix ${path}; until then the service keeps its last good settings (or the defaults) and reports the problem`)];
  }
}
