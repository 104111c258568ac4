// agent-bridge doctor on source roots that cannot be read: a root that cannot
// be listed, a directory and a file below a root that this user may not read.
// Permissions do not stop root, so when the suite runs as root the doctor runs
// as the unprivileged user nobody (uid 65534), for real, through the CLI.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DoctorCheck, DoctorReport } from '../protocols/doctor.ts';
import { cliPath, envFor, tempDir } from './helpers/home.ts';

const NOBODY = 65534;

function doctorAs(env: NodeJS.ProcessEnv): Promise<{ code: number; report: DoctorReport }> {
  const asRoot = process.getuid?.() === 0;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cliPath, 'doctor', '--json'],
      { env, ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}), maxBuffer: 1 << 24 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        if (code === -1) reject(new Error(`doctor did not run: ${String(error)} ${stderr}`));
        else resolve({ code, report: JSON.parse(stdout) as DoctorReport });
      },
    );
  });
}

describe('doctor: source roots', () => {
  it('fails an unlistable root and a root with an unreadable directory and file, naming them and the fix; exit 1', async (t) => {
    const home = tempDir('abh-roots-');
    chmodSync(home, 0o755); // the unprivileged doctor must be able to enter the fake home
    const projects = join(home, '.claude', 'projects');
    mkdirSync(join(projects, 'proj'), { recursive: true });
    writeFileSync(join(projects, 'proj', 'a.jsonl'), '{"type":"user"}\n', { mode: 0o644 });
    writeFileSync(join(projects, 'proj', 'secret.jsonl'), '{"type":"user"}\n');
    mkdirSync(join(projects, 'locked'));
    writeFileSync(join(projects, 'locked', 'b.jsonl'), '{"type":"user"}\n');
    const codexHome = join(home, 'codex');
    mkdirSync(join(codexHome, 'sessions'), { recursive: true });
    for (const dir of [home, join(home, '.claude'), projects, join(projects, 'proj'), codexHome]) chmodSync(dir, 0o755);
    chmodSync(join(projects, 'proj', 'a.jsonl'), 0o644);
    chmodSync(join(projects, 'proj', 'secret.jsonl'), 0o000);
    chmodSync(join(projects, 'locked'), 0o000);
    chmodSync(join(codexHome, 'sessions'), 0o000);
    t.after(() => {
      // So that the temp home can be removed by a non-root user too.
      chmodSync(join(projects, 'locked'), 0o755);
      chmodSync(join(codexHome, 'sessions'), 0o755);
    });

    const { code, report } = await doctorAs(envFor(home, { CODEX_HOME: codexHome }));
    assert.equal(code, 1, 'a failing check makes doctor exit 1');
    const root = (suffix: string): DoctorCheck => {
      const found = report.checks.find((c) => c.id === 'root' && c.title.endsWith(suffix));
      assert.ok(found !== undefined, `a check for ${suffix}`);
      return found;
    };
    const claude = root(projects);
    assert.equal(claude.level, 'fail');
    assert.match(claude.detail, /^2 files, but 1 directory and 1 file cannot be read \(first: .*locked, EACCES\): not captured$/);
    assert.match(claude.fix ?? '', new RegExp(`chmod -R u\\+rX ${projects}`));
    const sessions = root(join(codexHome, 'sessions'));
    assert.equal(sessions.level, 'fail');
    assert.match(sessions.detail, /cannot be listed \(EACCES\): nothing below it is captured/);
    assert.match(sessions.fix ?? '', /chmod u\+rx/);
    const archived = root(join(codexHome, 'archived_sessions'));
    assert.deepEqual([archived.level, archived.detail], ['ok', 'not found: nothing to capture there']);
    assert.equal(report.counts.fail, report.checks.filter((c) => c.level === 'fail').length);
  });
});
