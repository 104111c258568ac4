// config.json (the broker's file; only ever read): valid JSON whose history
// section capture understands. Validation is the settings schema's
// (src/config/config-text.ts), the one the service applies, so doctor, the
// service and `agent-bridge settings` never disagree: an error fails, a
// warning (an unknown or misplaced field) warns.

import { readFileSync } from 'node:fs';
import type { DoctorCheck } from '../../protocols/doctor.ts';
import { formatBytes } from '../cli/output.ts';
import { parseConfigText } from '../config/config-text.ts';
import { parseConfig, problemText } from '../config/settings.ts';
import type { DoctorContext } from './check.ts';
import { errnoOf, fail, messageOf, ok, warn } from './check.ts';

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
    const warnings = parseConfigText(text, path, 'global').problems.filter((p) => p.severity === 'warning');
    if (warnings.length > 0) {
      const more = warnings.length > 1 ? ` (and ${warnings.length - 1} more: agent-bridge settings lists them)` : '';
      return [warn('config', title, `${problemText(warnings[0] as (typeof warnings)[number])}${more}`, `fix ${path}; the field is ignored until then`)];
    }
    return [ok('config', title, `valid (history.ingest ${settings.ingest ? 'on' : 'off'}, ${pace})`)];
  } catch (error) {
    return [fail('config', title, messageOf(error), `fix ${path}; until then the service keeps its last good settings (or the defaults) and reports the problem`)];
  }
}
