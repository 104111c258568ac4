// agent-bridge doctor: every failing check provoked for real, on real files,
// and reported with its fix: a stale writer lock, a corrupt or locked
// OpenCode database, an invalid config.json, a store without its FTS5 index
// and one whose index is damaged, a newer schema, a latched migration, a
// dashboard token others can read, an open bridge home, a WAL that is not
// checkpointed, and too little disk for the migration. Unreadable source roots
// are in doctor-roots.test.ts.

import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, rmSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DoctorCheck } from '../protocols/doctor.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { doctorContext, type DoctorContext } from '../src/doctor/check.ts';
import { checkConfig } from '../src/doctor/config.ts';
import { checkDashboardToken } from '../src/doctor/dashboard-token.ts';
import { checkDisk, checkMigration, DISK_FAIL_BYTES, diskVerdict, migrationNeed } from '../src/doctor/migration.ts';
import { checkDatabase, checkOpenCode } from '../src/doctor/opencode.ts';
import { checkHistoryDbFiles, checkHome } from '../src/doctor/permissions.ts';
import { checkNode } from '../src/doctor/runtime.ts';
import { checkStore, checkWal, WAL_WARN_BYTES } from '../src/doctor/store.ts';
import { checkWriterLock } from '../src/doctor/writer.ts';
import { openWriter } from '../src/store/open.ts';
import { cli, envFor, fixtureHome, tempDir } from './helpers/home.ts';
import { legacyHome } from './helpers/legacy-home.ts';
import { migrate, seedCursorConflict } from './helpers/migrate.ts';
import { snapshotFiles } from './helpers/migration-db.ts';
import { OPENCODE_DIR } from './helpers/opencode.ts';

/** A bridge home under a fresh fake HOME, with a store created by the real writer opener. */
function storeHome(options: { fts?: boolean } = {}): { home: string; ctx: () => DoctorContext } {
  const home = tempDir('abh-doctor-');
  const bridgeHome = join(home, '.agent-bridge');
  mkdirSync(bridgeHome, { mode: 0o700 });
  openWriter(join(bridgeHome, 'history.db'), options).close();
  return { home, ctx: () => doctorContext(envFor(home)) };
}

function only(checks: DoctorCheck[], id: string): DoctorCheck {
  const found = checks.filter((c) => c.id === id);
  assert.equal(found.length, 1, `one ${id} check in ${JSON.stringify(checks)}`);
  return found[0] as DoctorCheck;
}

function assertFix(check: DoctorCheck, level: 'warn' | 'fail', detail: RegExp, fix: RegExp): void {
  assert.equal(check.level, level, JSON.stringify(check));
  assert.match(check.detail, detail);
  assert.ok(check.fix !== null, 'a fix is named');
  assert.match(check.fix, fix);
}

describe('doctor', () => {
  it('a healthy captured home: every check runs, none fails, exit 0', async () => {
    const { home } = fixtureHome();
    const env = envFor(home);
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    const run = await cli(['doctor', '--json'], env);
    assert.equal(run.code, 0, run.stdout.toString());
    const report = JSON.parse(run.stdout.toString()) as { checks: DoctorCheck[]; counts: Record<string, number> };
    const ids = new Set(report.checks.map((c) => c.id));
    for (const id of ['node', 'sqlite', 'fts5', 'home', 'history-db', 'schema', 'quick-check', 'fts-index', 'wal', 'writer-lock', 'service', 'migration', 'disk', 'root', 'opencode', 'config', 'dashboard-token']) {
      assert.ok(ids.has(id), `check ${id} ran`);
    }
    assert.equal(report.counts.fail, 0, JSON.stringify(report.checks.filter((c) => c.level === 'fail')));
    const claude = report.checks.find((c) => c.id === 'root' && c.title.includes('.claude/projects'));
    assert.equal(claude?.detail, '11 files', 'the fixture has 11 files below .claude/projects');
    const text = await cli(['doctor'], env);
    assert.match(text.stdout.toString(), /^ok {4}PRAGMA quick_check: ok$/m);
    assert.match(text.stdout.toString(), /\d+ ok, \d+ warnings?, 0 failures\n$/);
  });

  it('a stale writer lock (its owner is gone) is named, with the automatic recovery as the fix; a live owner is ok', () => {
    const { home, ctx } = storeHome();
    const lock = join(home, '.agent-bridge', 'history.db.lock');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    writeFileSync(lock, JSON.stringify({ pid: dead, nonce: 'dead', start: '1', since: Date.now() - 60_000 }));
    assertFix(only(checkWriterLock(ctx()), 'writer-lock'), 'warn', new RegExp(`stale: left by pid ${dead}`), /recovers/);
    writeFileSync(lock, JSON.stringify({ pid: process.pid, nonce: 'live', start: '', since: Date.now() }));
    const live = only(checkWriterLock(ctx()), 'writer-lock');
    assert.equal(live.level, 'ok');
    assert.match(live.detail, new RegExp(`live writer pid ${process.pid}`));
    writeFileSync(lock, '{"torn');
    assertFix(only(checkWriterLock(ctx()), 'writer-lock'), 'warn', /names no owner/, /next writer recovers it/);
  });

  it('an invalid config.json fails, naming the file and the reason; doctor exits 1', async () => {
    const { home, ctx } = storeHome();
    const config = join(home, '.agent-bridge', 'config.json');
    writeFileSync(config, '{"history": {"ingest": false,}}');
    assertFix(only(checkConfig(ctx()), 'config'), 'fail', /config\.json: not valid JSON/, /fix .*config\.json/);
    writeFileSync(config, JSON.stringify({ history: { ingest: 'maybe' } }));
    assertFix(only(checkConfig(ctx()), 'config'), 'fail', /history\.ingest/, /last good settings/);
    const run = await cli(['doctor'], envFor(home));
    assert.equal(run.code, 1);
    assert.match(run.stdout.toString(), /^FAIL {2}config .*config\.json: .*history\.ingest.*\n {6}fix: /m);
    writeFileSync(config, JSON.stringify({ autoWake: true, history: { ingest: false } }));
    assert.match(only(checkConfig(ctx()), 'config').detail, /valid \(history\.ingest off/);
  });

  it('a store created without FTS5 (AGENT_BRIDGE_HISTORY_FTS=off) is reported as using the literal fallback', () => {
    const { ctx } = storeHome({ fts: false });
    const checks = checkStore(ctx().paths);
    assertFix(only(checks, 'fts-index'), 'warn', /no FTS5 index .*literal matching/, /new bridge home/);
    assert.equal(only(checks, 'quick-check').level, 'ok');
  });

  it('a damaged FTS5 index fails quick_check and the index check, and the named fix (run through the CLI) repairs it', async () => {
    const { home, manifest } = fixtureHome();
    const env = envFor(home);
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    const keyword = Object.keys(manifest.keywords).find((k) => manifest.keywords[k]?.agent === 'claude') as string;
    const hits = async (): Promise<number> => (JSON.parse((await cli(['search', keyword, '--json'], env)).stdout.toString()) as { hits: unknown[] }).hits.length;
    const before = await hits();
    assert.ok(before > 0, `${keyword} is found before the damage`);
    const ctx = doctorContext(env);
    const db = new Database(ctx.paths.historyDb);
    db.unsafeMode(true); // shadow tables are protected otherwise: this plays a disk fault
    db.prepare('UPDATE history_fts_data SET block = ? WHERE id = 10').run(Buffer.from('not an fts5 structure record'));
    db.close();
    const checks = checkStore(ctx.paths);
    assertFix(only(checks, 'quick-check'), 'fail', /fts5: corrupt structure record/, /agent-bridge doctor --rebuild-fts/);
    assertFix(only(checks, 'fts-index'), 'fail', /FTS5 index is damaged/, /agent-bridge doctor --rebuild-fts/);
    // The fix as printed, run as the user would.
    const command = /`agent-bridge ([^`]+)`/.exec(only(checks, 'fts-index').fix ?? '')?.[1] as string;
    const repaired = await cli(command.split(' '), env);
    assert.equal(repaired.code, 0, repaired.stderr.toString());
    assert.match(repaired.stdout.toString(), /full-text index rebuilt from \d[\d,]* documents/);
    const after = checkStore(ctx.paths);
    assert.deepEqual([only(after, 'quick-check').level, only(after, 'fts-index').level], ['ok', 'ok']);
    assert.equal(await hits(), before, 'the rebuilt index finds what the original found');
  });

  it('doctor --rebuild-fts refuses while another process is the writer, and on a home with nothing captured', async () => {
    const { home } = fixtureHome();
    const env = envFor(home);
    const nothing = await cli(['doctor', '--rebuild-fts'], env);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr.toString(), /no history has been captured yet/);
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    const lockPath = doctorContext(env).paths.writerLock;
    writeFileSync(lockPath, JSON.stringify({ pid: process.pid, nonce: 'test', start: '', since: Date.now() }));
    try {
      const refused = await cli(['doctor', '--rebuild-fts'], env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr.toString(), /being written by another process \(pid \d+\).*stop it/);
    } finally {
      rmSync(lockPath);
    }
  });

  it('a store of a newer schema version fails and is left untouched', () => {
    const { ctx } = storeHome();
    const db = new Database(ctx().paths.historyDb);
    db.pragma('user_version = 2');
    db.close();
    const checks = checkStore(ctx().paths);
    assertFix(only(checks, 'schema'), 'fail', /2: written by a newer agent-bridge/, /upgrade/);
    assert.equal(checks.length, 1, 'no integrity check on a schema this build does not know');
  });

  it('a corrupt OpenCode database fails (damaged pages, then a bad header); nothing is created beside it', async () => {
    const { home } = fixtureHome();
    const dbPath = join(home, OPENCODE_DIR, 'opencode.db');
    const ctx = doctorContext(envFor(home));
    assert.equal(only(await checkOpenCode(ctx), 'opencode').level, 'ok');
    const fd = openSync(dbPath, 'r+');
    writeSync(fd, Buffer.alloc(3 * 4096, 0xa5), 0, 3 * 4096, 2 * 4096); // pages 3-5 overwritten
    closeSync(fd);
    assertFix(only(await checkOpenCode(ctx), 'opencode'), 'fail', /corrupt: database disk image is malformed/, /recreate it .*stays in history\.db/);
    const header = openSync(dbPath, 'r+');
    writeSync(header, Buffer.from('definitely not SQLite'), 0, 21, 0);
    closeSync(header);
    assertFix(only(await checkOpenCode(ctx), 'opencode'), 'fail', /not an SQLite database \(bad header\)/, /recreate it/);
    assert.deepEqual(readdirSync(join(home, OPENCODE_DIR)).filter((n) => n.startsWith('opencode.db')), ['opencode.db'], 'no -wal, -shm or copy beside it');
  });

  it('a locked OpenCode database (a writer holds it exclusively) is a warning: capture retries it', async () => {
    const { home } = fixtureHome();
    const original = join(home, OPENCODE_DIR, 'opencode.db');
    const dir = tempDir('abh-oclock-');
    const path = join(dir, 'opencode.db');
    copyFileSync(original, path);
    const writer = new Database(path);
    writer.pragma('journal_mode = DELETE'); // a rollback-journal database, read in place
    writer.exec('BEGIN EXCLUSIVE');
    try {
      assertFix(await checkDatabase(path), 'warn', /locked: OpenCode database is locked \(SQLITE_BUSY/, /retries it on its own/);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
    const free = await checkDatabase(path);
    assert.equal(free.level, 'ok');
    assert.match(free.detail, /7 sessions \(rollback journal, read in place\)/);
  });

  it('a latched migration failure fails with the retry command as its fix', async (t) => {
    const home = await legacyHome();
    t.after(() => home.cleanup());
    const paths = resolvePaths(home.env);
    seedCursorConflict(paths.historyDb);
    assert.equal((await migrate(home)).phase, 'failed');
    assertFix(only(checkMigration(doctorContext(home.env)), 'migration'), 'fail', /failed and latched: .*history_cursors/, /agent-bridge reindex --retry/);
  });

  it('free disk: what the migration still needs is the rest of the snapshot and the copy; bounded by bridge.db before the snapshot is done', async (t) => {
    const home = await legacyHome();
    t.after(() => home.cleanup());
    const paths = resolvePaths(home.env);
    const size = (path: string): number => (existsSync(path) ? statSync(path).size : 0);
    const before = doctorContext(home.env);
    const bound = migrationNeed(paths, before.health.migration);
    // Nothing written yet: the snapshot holds at most bridge.db, and history.db receives as much again.
    assert.deepEqual(bound, { bytes: 2 * size(paths.bridgeDb), exact: false, explain: bound?.explain });
    const plenty = only(checkDisk(before, () => 1e12), 'disk');
    assert.equal(plenty.level, 'ok');
    assert.match(plenty.detail, /needs up to .* at most bridge\.db's/);
    assertFix(only(checkDisk(before, () => DISK_FAIL_BYTES - 1), 'disk'), 'fail', /free; the migration needs/, /retries when the disk is full/);

    // Stopped in the copy pass: the snapshot is complete, so the need is measured.
    const stopped = await migrate(home, { stopAt: { kind: 'copy', count: 1 } });
    assert.equal(stopped.pass, 'copy');
    const during = doctorContext(home.env);
    const [snapshot] = snapshotFiles(home.home);
    const snapshotBytes = size(join(home.home, '.migration-snapshots', snapshot as string));
    const copied = size(paths.historyDb) + size(`${paths.historyDb}-wal`);
    const exact = migrationNeed(paths, during.health.migration);
    assert.equal(exact?.exact, true);
    assert.equal(exact?.bytes, Math.max(0, snapshotBytes - copied));
    assert.match(only(checkMigration(during), 'migration').detail, /^copy \d/);
  });

  it('the disk verdict: fail under the floor or under an exact need, warn within the margin or on an upper bound', () => {
    const MiB = 1024 * 1024;
    const exact = { bytes: 500 * MiB, exact: true, explain: '' };
    const bound = { bytes: 500 * MiB, exact: false, explain: '' };
    assert.equal(diskVerdict(DISK_FAIL_BYTES - 1, null), 'fail');
    assert.equal(diskVerdict(100 * MiB, null), 'warn');
    assert.equal(diskVerdict(10 * 1024 * MiB, null), 'ok');
    assert.equal(diskVerdict(499 * MiB, exact), 'fail');
    assert.equal(diskVerdict(600 * MiB, exact), 'warn');
    assert.equal(diskVerdict(800 * MiB, exact), 'ok');
    assert.equal(diskVerdict(499 * MiB, bound), 'warn', 'an upper bound never fails by itself');
    assert.equal(diskVerdict(501 * MiB, bound), 'ok');
  });

  it('a dashboard token others can read fails; mode 0600 is ok', () => {
    const { home, ctx } = storeHome();
    const token = join(home, '.agent-bridge', 'dashboard-token');
    writeFileSync(token, 'a'.repeat(64), { mode: 0o644 });
    chmodSync(token, 0o644);
    assertFix(only(checkDashboardToken(ctx()), 'dashboard-token'), 'fail', /readable by other users \(mode 0644\)/, /chmod 600/);
    chmodSync(token, 0o600);
    assert.equal(only(checkDashboardToken(ctx()), 'dashboard-token').level, 'ok');
  });

  it('an open bridge home and a world-readable history.db are warned about', () => {
    const { home, ctx } = storeHome();
    const bridgeHome = join(home, '.agent-bridge');
    chmodSync(bridgeHome, 0o755);
    chmodSync(join(bridgeHome, 'history.db'), 0o644);
    assertFix(only(checkHome(ctx().paths), 'home'), 'warn', /open to other users \(mode 0755\)/, /chmod 700/);
    assertFix(checkHistoryDbFiles(ctx().paths)[0] as DoctorCheck, 'warn', /history\.db is readable by other users/, /chmod 600/);
    chmodSync(bridgeHome, 0o700);
    assert.equal(only(checkHistoryDbFiles(ctx().paths), 'history-db').level, 'ok', 'a 0700 home protects the files in it');
  });

  it('a WAL that grew past the threshold is warned about', () => {
    const { ctx } = storeHome();
    writeFileSync(`${ctx().paths.historyDb}-wal`, '');
    truncateSync(`${ctx().paths.historyDb}-wal`, WAL_WARN_BYTES + 1); // a sparse file of that size: SQLite reads none of it here
    assertFix(only(checkWal(ctx().paths), 'wal'), 'warn', /256 MiB: SQLite has not been able to checkpoint/, /close long-lived readers/);
  });

  it('Node older than package.json requires fails', () => {
    assertFix(only(checkNode('20.18.3'), 'node'), 'fail', /20\.18\.3 is older than 20\.19/, /install Node\.js 20\.19/);
    assert.equal(only(checkNode('22.1.0'), 'node').level, 'ok');
  });
});
