// `agent-bridge doctor [--json]`: every check (src/doctor/) with ok, warn or
// fail and a one-line fix; exit 1 when any check fails.
// `agent-bridge doctor --rebuild-fts`: the fix of a damaged full-text index.

import type { DoctorCheck, DoctorReport } from '../../../protocols/doctor.ts';
import { doctorContext } from '../../doctor/check.ts';
import { rebuildFtsIndex } from '../../doctor/rebuild-fts.ts';
import { runDoctor } from '../../doctor/run.ts';
import { resolvePaths } from '../../config/paths.ts';
import { parse } from '../args.ts';
import { isTty, printJson } from '../output.ts';

const LABEL = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;
const COLOUR = { ok: '\x1b[32m', warn: '\x1b[33m', fail: '\x1b[31m' } as const;

export async function doctor(argv: readonly string[]): Promise<number> {
  const { flags } = parse(argv, { json: { type: 'boolean' }, 'rebuild-fts': { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  if (flags['rebuild-fts'] === true) {
    const rebuilt = rebuildFtsIndex(resolvePaths());
    if (flags.json === true) printJson(rebuilt);
    else process.stdout.write(`full-text index rebuilt from ${rebuilt.documents.toLocaleString('en-US')} documents in ${(rebuilt.ms / 1000).toFixed(1)} s\n`);
    return 0;
  }
  const report = await runDoctor(doctorContext());
  if (flags.json === true) printJson(report);
  else process.stdout.write(`${doctorLines(report, isTty()).join('\n')}\n`);
  return report.counts.fail > 0 ? 1 : 0;
}

function line(check: DoctorCheck, tty: boolean): string[] {
  const label = tty ? `${COLOUR[check.level]}${LABEL[check.level]}\x1b[0m` : LABEL[check.level];
  const lines = [`${label}  ${check.title}: ${check.detail}`];
  if (check.fix !== null) lines.push(`      fix: ${check.fix}`);
  return lines;
}

export function doctorLines(report: DoctorReport, tty: boolean): string[] {
  const { ok, warn, fail } = report.counts;
  return [
    `agent-bridge doctor: ${report.home}`,
    ...report.checks.flatMap((c) => line(c, tty)),
    `${ok} ok, ${warn} warning${warn === 1 ? '' : 's'}, ${fail} failure${fail === 1 ? '' : 's'}`,
  ];
}
