// Every OpenCode database capture would read: readable, not locked, not
// corrupt (`PRAGMA quick_check`), and with the tables capture needs. Opened as
// capture opens it (sources/opencode/access.ts), so nothing is ever created
// beside OpenCode's files: a closed WAL database is checked on a private copy
// in a temporary directory, removed afterwards.

import { constants, mkdtempSync, rmdirSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DoctorCheck } from '../../protocols/doctor.ts';
import { accessMode, journalKind, NotADatabase, observeFiles, openReadOnly, type Db } from '../sources/opencode/access.ts';
import { locateDatabases } from '../sources/opencode/locate.ts';
import { describeFailure } from '../sources/opencode/problems.ts';
import { missingRequired, readColumns } from '../sources/opencode/schema.ts';
import { SnapshotStore } from '../sources/opencode/snapshot.ts';
import type { DoctorContext } from './check.ts';
import { currentUid, errnoOf, fail, messageOf, ok, warn } from './check.ts';

const KEEPS = 'what was captured from it stays in history.db';

export async function checkOpenCode(ctx: DoctorContext): Promise<DoctorCheck[]> {
  const located = await locateDatabases(ctx.paths);
  if (located.length === 0) return [ok('opencode', 'OpenCode database', `none in ${ctx.paths.opencodeDataDir}: nothing to capture`)];
  const checks: DoctorCheck[] = [];
  for (const db of located) checks.push(await checkDatabase(db.path, db.path === ctx.paths.opencodeDb));
  return checks;
}

const MODE_TEXT = { direct: 'rollback journal, read in place', live: 'WAL, OpenCode has it open: read in place', snapshot: 'WAL, closed: checked on a private copy' } as const;

export async function checkDatabase(path: string, named = false): Promise<DoctorCheck> {
  const title = `OpenCode database ${path}`;
  const files = observeFiles(path);
  if (files === null) {
    return named ? warn('opencode', title, 'OPENCODE_DB names it, but it does not exist', 'correct OPENCODE_DB (absolute, or relative to the OpenCode data folder)') : ok('opencode', title, 'gone since it was listed');
  }
  try {
    await access(path, constants.R_OK);
  } catch (error) {
    const who = currentUid() === null ? 'this user' : `uid ${currentUid()}`;
    return fail('opencode', title, `cannot be read (${errnoOf(error)}): it is not captured`, `make it readable for ${who}: chmod u+r ${path}`);
  }
  let copy: { store: SnapshotStore; dir: string } | null = null;
  let db: Db | null = null;
  try {
    const mode = accessMode(await journalKind(path), files);
    let readPath = path;
    if (mode === 'snapshot') {
      const dir = mkdtempSync(join(tmpdir(), 'agent-bridge-doctor-'));
      copy = { store: new SnapshotStore(dir), dir };
      await copy.store.take(path, 'check', files);
      readPath = copy.store.pathFor('check');
    }
    db = openReadOnly(readPath);
    const problems = (db.pragma('quick_check') as Array<{ quick_check: string }>).map((r) => r.quick_check).filter((t) => t !== 'ok');
    if (problems.length > 0) {
      return fail('opencode', title, `corrupt: quick_check reports ${problems[0] ?? ''}`, `let OpenCode repair or recreate it (or restore it from a backup); ${KEEPS}`);
    }
    const missing = missingRequired(readColumns(db));
    if (missing.length > 0) {
      return fail('opencode', title, `lacks ${missing.join(', ')}: an OpenCode version this build does not know, so it is not captured`, `upgrade agent-bridge history; ${KEEPS}`);
    }
    const sessions = db.prepare('SELECT count(*) FROM session').pluck().get() as number;
    return ok('opencode', title, `readable, quick_check ok, ${sessions} session${sessions === 1 ? '' : 's'} (${MODE_TEXT[mode]})`);
  } catch (error) {
    if (error instanceof NotADatabase) return fail('opencode', title, `corrupt: ${error.message}`, `let OpenCode recreate it (or restore it from a backup); ${KEEPS}`);
    const failure = describeFailure(path, error);
    if (failure.busy) return warn('opencode', title, `locked: ${failure.problem.message}`, 'capture retries it on its own; if it stays locked, close the program holding it');
    const corrupt = /^SQLITE_(CORRUPT|NOTADB)/.test(errnoOf(error));
    return fail('opencode', title, corrupt ? `corrupt: ${messageOf(error)}` : failure.problem.message, `${corrupt ? 'let OpenCode repair or recreate it (or restore it from a backup)' : 'check the file and its folder'}; ${KEEPS}`);
  } finally {
    db?.close();
    if (copy !== null) {
      await copy.store.discard('check');
      rmdirSync(copy.dir);
    }
  }
}
