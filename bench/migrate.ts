// bench/migrate: the legacy bridge.db → history.db migration on a large
// generated 0.29.17 home (fixtures/make-bridge-home.mjs --rows N; the default
// N = 1.9 million gives a little over 1 GiB of legacy raw records; about 580
// bytes of raw record per bulk row, plus its document and three tags).
//
//   node --import tsx bench/migrate.ts [--rows N] [--dir DIR] [--paced-seconds S] [--kill-after S] [--uncapped-seconds S]
//                                      [--skip uncapped,paced,resume] [--nice N]
//
// --nice N sets AGENT_BRIDGE_HISTORY_NICE for the service and children (the
// history worker's nice increment; the product's default is 10, which on a
// machine other work keeps busy gives the worker a small share of a core,
// while the baselines run at this process's priority).
//
// Same-run baselines (the machine is shared; figures are read against them):
//   copy      one unchunked INSERT…SELECT of 256 MiB of conversation_records,
//             and one of 256 MiB of every legacy table in its share of the
//             payload (millions of tiny rows cost more per byte)
//   commit    a WAL synchronous=FULL commit (what each snapshot unit pays
//             before its checkpoints), and for comparison a two-file
//             rollback-journal one (what a unit paid to commit atomically
//             with its checkpoints before)
//   loop      this thread's event-loop delay while nothing runs
// Trials, each on its own stage folder (bridge.db hard-linked: the migration
// only reads it):
//   uncapped  HistoryService (history worker) at pace max, driven from this
//             thread (the broker's): payload IO per pass and overall, unit
//             latency (the chunks sharing one commit, commits included; the
//             FTS5 merge units between copy units count as units too),
//             this thread's event-loop delay. Midway through the
//             copy pass the service is stopped and a child process resumes the
//             copy and is SIGKILLed; its restart cost is measured; then the
//             service finishes the migration. With --uncapped-seconds the
//             trial stops after S seconds instead and reports the rates and
//             progress it reached, with the whole run's time extrapolated.
//   paced     the same at 8 MiB/s for S seconds: measured payload IO rate
//   resume    a child migrating unpaced is SIGKILLed S seconds into the
//             snapshot pass; the restart's cost (revalidating saved chunks
//             against a new view) until its next snapshot chunk
// Figures are printed as they come; nothing is asserted.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import type { MigrationProgress } from '../protocols/migration.ts';
import type { HistoryStatus } from '../protocols/service.ts';
import { HistoryService } from '../src/service/history-service.ts';
import { LEGACY_TABLES } from '../src/store/schema.ts';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const FIXTURE = process.env.AGENT_BRIDGE_FIXTURES ?? fileURLToPath(new URL('../../shared/fixtures/', import.meta.url));
const MiB = 1024 * 1024;

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1900000' },
    dir: { type: 'string', default: join(REPO, '.bench-out', 'migrate') },
    'paced-seconds': { type: 'string', default: '60' },
    'kill-after': { type: 'string', default: '20' },
    'uncapped-seconds': { type: 'string', default: '0' },
    skip: { type: 'string', default: '' },
    nice: { type: 'string' },
  },
});
const rows = Number(values.rows);
const dir = resolve(values.dir as string);
const pacedSeconds = Number(values['paced-seconds']);
const killAfter = Number(values['kill-after']);
const uncappedSeconds = Number(values['uncapped-seconds']);
const skip = new Set((values.skip as string).split(',').filter(Boolean));

const mb = (bytes: number): string => (bytes / MiB).toFixed(1);
const print = (line: string): void => void process.stdout.write(`${line}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

type Loop = ReturnType<typeof monitorEventLoopDelay>;
const loopMs = (h: Loop, p: number): number => h.percentile(p) / 1e6;

/** The payload of one row as the fixture manifest defines it: text and blob bytes plus 8 per number (SQL over `cols`). */
function rowPayloadSql(cols: readonly string[]): string {
  return cols.map((c) => `CASE typeof(${c}) WHEN 'text' THEN octet_length(${c}) WHEN 'blob' THEN length(${c}) WHEN 'null' THEN 0 ELSE 8 END`).join(' + ');
}

function columnsOf(db: Database.Database, schema: string, table: string): string[] {
  return (db.prepare(`PRAGMA ${schema}.table_info("${table}")`).all() as Array<{ name: string }>).map((c) => `"${c.name}"`);
}

/** Legacy history payload per table (rows and payload bytes). */
function legacyPayload(bridgeDb: string): Record<string, { rows: number; bytes: number }> {
  const db = new Database(bridgeDb, { readonly: true });
  try {
    const out: Record<string, { rows: number; bytes: number }> = {};
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    for (const table of tables.filter((t) => LEGACY_TABLES.includes(t as (typeof LEGACY_TABLES)[number]))) {
      const [count, bytes] = db.prepare(`SELECT count(*), coalesce(sum(${rowPayloadSql(columnsOf(db, 'main', table))}), 0) FROM "${table}"`).raw(true).get() as [number, number];
      out[table] = { rows: count, bytes };
    }
    return out;
  } finally {
    db.close();
  }
}

interface HomeFacts {
  readonly rows: number;
  readonly generatedS: number;
  readonly rawBytes: number;
  readonly payload: number;
  /** Per legacy table (homes generated by earlier versions of this bench lack it: measured then). */
  readonly tables?: Record<string, { rows: number; bytes: number }>;
}

/**
 * The generated home, made once per --rows and reused (facts cached in
 * bench-home.json beside it). The fixture's generate() reads each database
 * file whole to hash it for its manifest, which Node refuses above 2 GiB;
 * by then the databases are complete, so a full-size home is used without
 * that manifest and its payload is measured here instead. At 1.9 million rows
 * its manifest step (keyword locations) can also run out of heap after the
 * databases are written: a home whose bridge.db holds the bulk rows already
 * is adopted as it is rather than generated again.
 */
async function home(): Promise<HomeFacts & { path: string; reused: boolean }> {
  const path = join(dir, `home-${rows}`);
  const factsFile = join(dir, `home-${rows}.bench-home.json`);
  if (existsSync(factsFile)) {
    let facts = JSON.parse(readFileSync(factsFile, 'utf8')) as HomeFacts;
    if (facts.tables === undefined) {
      facts = { ...facts, tables: legacyPayload(join(path, 'bridge.db')) };
      writeFileSync(factsFile, `${JSON.stringify(facts, null, 2)}\n`);
    }
    return { ...facts, path, reused: true };
  }
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  if (bulkRowsIn(join(path, 'bridge.db')) >= rows && rows > 0) {
    print(`  note: adopting the bridge.db an earlier generation wrote in ${path} (it holds the ${rows} bulk rows; its manifest was not written)`);
  } else try {
    const { generate } = (await import(join(FIXTURE, 'make-bridge-home.mjs'))) as { generate: (o: object) => { fails: string[] } };
    const { fails } = generate({ outDir: path, rows, sqliteModule: join(REPO, 'node_modules', 'better-sqlite3'), force: true });
    if (fails.length > 0) throw new Error(`fixture self-check failed: ${fails.join('; ')}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_FS_FILE_TOO_LARGE' || !existsSync(join(path, 'bridge.db'))) throw error;
    print('  note: the fixture could not hash a bridge.db above 2 GiB for its manifest; the databases are complete and used as written');
  }
  const generatedS = (performance.now() - started) / 1000;
  const db = new Database(join(path, 'bridge.db'), { readonly: true });
  const rawBytes = db.prepare('SELECT sum(length(raw)) FROM conversation_records').pluck().get() as number;
  db.close();
  const tables = legacyPayload(join(path, 'bridge.db'));
  const facts: HomeFacts = { rows, generatedS, rawBytes, payload: Object.values(tables).reduce((n, t) => n + t.bytes, 0), tables };
  writeFileSync(factsFile, `${JSON.stringify(facts, null, 2)}\n`);
  return { ...facts, path, reused: false };
}

/** Records of the generator's bulk conversation (`--rows`) in a bridge.db, 0 when there is none. */
function bulkRowsIn(bridgeDb: string): number {
  if (!existsSync(bridgeDb)) return 0;
  const db = new Database(bridgeDb, { readonly: true });
  try {
    return (db.prepare("SELECT count(*) FROM conversation_records WHERE source LIKE '%/rollout-2026-02-03T09-00-00-%'").pluck().get() as number) ?? 0;
  } catch {
    return 0;
  } finally {
    db.close();
  }
}

/**
 * A stage folder whose bridge.db is a hard link to the generated one (never
 * written by the migration). The earlier trials' dirty pages are written out
 * first (sync, its time printed), so that no trial's commits queue behind
 * another's writeback. (The paced trial's unit p99 varied from 41.1 to
 * 188.5 ms between runs; that is not writeback alone: the sync before it
 * took 0.0 s in the run that measured 76.2 ms.)
 */
function stage(name: string, source: string): { root: string; env: NodeJS.ProcessEnv } {
  const root = join(dir, `stage-${name}`);
  rmSync(root, { recursive: true, force: true });
  const syncStarted = performance.now();
  execFileSync('sync');
  print(`  (${name}: the earlier trials' writes synced in ${((performance.now() - syncStarted) / 1000).toFixed(1)} s)`);
  const bridgeHome = join(root, 'home');
  mkdirSync(bridgeHome, { recursive: true });
  linkSync(join(source, 'bridge.db'), join(bridgeHome, 'bridge.db'));
  const nice = values.nice === undefined ? {} : { AGENT_BRIDGE_HISTORY_NICE: values.nice };
  // Project mirrors off: a once run syncs replicas of the migrated history before it ends (this custom home puts
  // them in <home>/project-mirrors/), which was 83 s of a 139 s run on a 200,000-row home and is not the
  // migration (bench/mirror.ts and bench/mirror-replay.ts measure it).
  const mirrors = { AGENT_BRIDGE_HISTORY_MIRRORS: 'off' };
  return {
    root,
    env: { ...process.env, ...nice, ...mirrors, HOME: join(root, 'user'), AGENT_BRIDGE_HOME: bridgeHome, CLAUDE_CONFIG_DIR: join(root, 'claude'), CODEX_HOME: join(root, 'codex'), XDG_DATA_HOME: join(root, 'xdg') },
  };
}

/**
 * Unchunked INSERT…SELECT into a scratch WAL database (tables as bridge.db
 * declares them: keys, no secondary index, no FTS), one transaction, of
 * `limits[table]` payload bytes of each table (the first rows by rowid).
 * Returns payload bytes per second.
 */
function copyBaseline(source: string, limits: Record<string, number>): number {
  const scratch = join(dir, 'baseline-copy.db');
  for (const f of [scratch, `${scratch}-wal`, `${scratch}-shm`]) rmSync(f, { force: true });
  const db = new Database(scratch);
  db.pragma('journal_mode = WAL');
  db.prepare('ATTACH DATABASE ? AS src').run(join(source, 'bridge.db'));
  const plans: Array<{ table: string; upto: number; bytes: number }> = [];
  for (const [table, limit] of Object.entries(limits)) {
    if (limit <= 0) continue;
    db.exec((db.prepare('SELECT sql FROM src.sqlite_master WHERE name = ?').pluck().get(table) as string).replace(/^CREATE TABLE\s+("?)/i, 'CREATE TABLE main.$1'));
    let upto = 0;
    let bytes = 0;
    for (const r of db.prepare(`SELECT rowid AS id, ${rowPayloadSql(columnsOf(db, 'src', table))} AS n FROM src."${table}" ORDER BY rowid`).iterate() as Iterable<{ id: number; n: number }>) {
      upto = r.id;
      bytes += r.n;
      if (bytes >= limit) break;
    }
    plans.push({ table, upto, bytes });
  }
  const started = performance.now();
  db.transaction(() => {
    for (const p of plans) db.prepare(`INSERT INTO main."${p.table}" (rowid, ${columnsOf(db, 'src', p.table).join(', ')}) SELECT rowid, * FROM src."${p.table}" WHERE rowid <= ?`).run(p.upto);
  })();
  const seconds = (performance.now() - started) / 1000;
  db.close();
  for (const f of [scratch, `${scratch}-wal`, `${scratch}-shm`]) rmSync(f, { force: true });
  return plans.reduce((n, p) => n + p.bytes, 0) / seconds;
}

/** Commit latency of `files` databases in `mode` with synchronous=FULL, 16 KiB written to the first per commit. */
function commitBaseline(mode: 'delete' | 'wal', files: 1 | 2): { p50: number; p99: number } {
  const base = join(dir, 'baseline-commit');
  rmSync(base, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  const db = new Database(join(base, 'a.db'));
  db.pragma(`journal_mode = ${mode}`);
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (x BLOB)');
  const a = db.prepare('INSERT INTO t VALUES (?)');
  let b: Database.Statement | null = null;
  if (files === 2) {
    db.prepare('ATTACH DATABASE ? AS p').run(join(base, 'b.db'));
    db.exec(`PRAGMA p.journal_mode = ${mode}; PRAGMA p.synchronous = FULL; CREATE TABLE p.c (y)`);
    b = db.prepare('INSERT INTO p.c VALUES (?)');
  }
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    db.transaction(() => {
      a.run(Buffer.alloc(16 * 1024, i));
      b?.run(i);
    })();
    times.push(performance.now() - started);
  }
  db.close();
  rmSync(base, { recursive: true, force: true });
  times.sort((x, y) => x - y);
  return { p50: times[100] as number, p99: times[198] as number };
}

async function loopBaseline(seconds: number): Promise<{ p99: number; max: number }> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  await sleep(seconds * 1000);
  loop.disable();
  return { p99: loopMs(loop, 99), max: loop.max / 1e6 };
}

interface PassSpan {
  first: number;
  last: number;
  bytesFirst: number;
  bytesLast: number;
}

interface ServiceRun {
  readonly seconds: number;
  readonly last: MigrationProgress;
  readonly chunkP99Worst: number;
  readonly loop: Loop;
  readonly passes: Map<string, PassSpan>;
}

/**
 * Drive HistoryService from this (the broker's) thread, sampling its status
 * every 2 s; stop when `until` says so (serve) or at the end of a once run.
 */
async function service(env: NodeJS.ProcessEnv, options: { pace: 'max' | 'spec'; until: ((s: HistoryStatus, seconds: number) => boolean) | null; label: string }): Promise<ServiceRun> {
  const svc = new HistoryService({ env, mode: options.until === null ? 'once' : 'serve', pace: options.pace });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const passes = new Map<string, PassSpan>();
  let last: MigrationProgress | null = null;
  let chunkP99Worst = 0;
  let lastPrint = 0;
  loop.enable();
  const started = performance.now();
  await svc.start();
  const record = (s: HistoryStatus): void => {
    const m = s.migration;
    const t = (performance.now() - started) / 1000;
    last = m;
    chunkP99Worst = Math.max(chunkP99Worst, m.chunkMs.p99);
    if (m.pass !== null) {
      const span = passes.get(m.pass) ?? { first: t, last: t, bytesFirst: m.ioBytes, bytesLast: m.ioBytes };
      span.last = t;
      span.bytesLast = m.ioBytes;
      passes.set(m.pass, span);
    }
    if (t - lastPrint >= 30) {
      lastPrint = t;
      print(`  ${options.label} ${t.toFixed(0)}s ${m.phase} ${m.percent.toFixed(1)}% io ${mb(m.ioBytesPerSecond)} MiB/s chunk p99 ${m.chunkMs.p99.toFixed(1)} ms`);
    }
  };
  try {
    if (options.until === null) {
      const done = svc.finished();
      let finished = false;
      void done.then(() => (finished = true), () => (finished = true));
      while (!finished) {
        await Promise.race([sleep(2000), done.catch(() => undefined)]);
        if (!finished) await svc.status().then(record, () => undefined);
      }
      record((await done).status);
    } else {
      for (;;) {
        await sleep(2000);
        const s = await svc.status();
        record(s);
        if (options.until(s, (performance.now() - started) / 1000)) break;
      }
    }
  } finally {
    await svc.stop();
    loop.disable();
  }
  const final = last as MigrationProgress | null;
  if (final === null) throw new Error(`${options.label}: no status`);
  return { seconds: (performance.now() - started) / 1000, last: final, chunkP99Worst, loop, passes };
}

function printPasses(label: string, passes: Map<string, PassSpan>, ratios: (rate: number) => string): void {
  for (const [pass, span] of passes) {
    const seconds = span.last - span.first;
    const rate = (span.bytesLast - span.bytesFirst) / seconds;
    if (seconds > 0) print(`  ${label} ${pass}: ${mb(span.bytesLast - span.bytesFirst)} MiB payload IO in ${seconds.toFixed(0)} s = ${mb(rate)} MiB/s = ${ratios(rate)}`);
  }
}

interface ChildEvent {
  kind?: string;
  bytes?: number;
  t: number;
  done?: string;
}

/** Run the bench child; SIGKILL it when `kill` says so; resolve with the events seen. */
function child(env: NodeJS.ProcessEnv, kill: (e: ChildEvent, elapsedS: number) => boolean): Promise<{ events: ChildEvent[]; killed: boolean }> {
  return new Promise((resolvePromise, reject) => {
    const startedAt = performance.now();
    const proc = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'bench', 'migrate-child.ts')], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'inherit'] });
    const events: ChildEvent[] = [];
    let killed = false;
    createInterface({ input: proc.stdout }).on('line', (text) => {
      const e = JSON.parse(text) as ChildEvent;
      events.push(e);
      if (!killed && kill(e, (performance.now() - startedAt) / 1000)) {
        killed = true;
        proc.kill('SIGKILL');
      }
    });
    proc.on('error', reject);
    proc.on('close', () => resolvePromise({ events, killed }));
  });
}

/** Restart after a kill in `kind`: seconds (child clock, process start included) to its next chunk of that kind. */
async function restartCost(env: NodeJS.ProcessEnv, kind: string): Promise<{ seconds: number; revalidated: number; revalidatedBytes: number }> {
  const run = await child(env, (e) => e.kind === kind);
  const next = run.events.find((e) => e.kind === kind);
  const revalidation = run.events.filter((e) => e.kind === 'revalidate');
  return { seconds: (next?.t ?? Number.NaN) / 1000, revalidated: revalidation.length, revalidatedBytes: revalidation.reduce((n, e) => n + (e.bytes ?? 0), 0) };
}

async function main(): Promise<void> {
  print(`bench/migrate: rows ${rows}, dir ${dir}; history worker nice increment ${values.nice ?? 'the default (10)'}; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const generated = await home();
  print(`home: ${generated.path} generated in ${generated.generatedS.toFixed(0)} s${generated.reused ? ' (earlier; reused)' : ''}`);
  print(`  legacy raw records ${mb(generated.rawBytes)} MiB, legacy history payload ${mb(generated.payload)} MiB, bridge.db ${mb(statSync(join(generated.path, 'bridge.db')).size)} MiB`);
  if (generated.rawBytes < 1024 * MiB) print('  note: less than 1 GiB of raw records; raise --rows for the full-size bench');

  const tables = generated.tables ?? {};
  const copy = copyBaseline(generated.path, { conversation_records: 256 * MiB });
  // The same tables in their share of the payload: 256 MiB in all.
  const copyAll = copyBaseline(generated.path, Object.fromEntries(Object.entries(tables).map(([t, v]) => [t, (v.bytes / generated.payload) * 256 * MiB])));
  const commit = commitBaseline('wal', 1);
  const twoFile = commitBaseline('delete', 2);
  const idle = await loopBaseline(10);
  print(`baselines: unchunked INSERT…SELECT of conversation_records ${mb(copy)} MiB/s, of every legacy table in its share of the payload ${mb(copyAll)} MiB/s;`);
  print(`  a WAL synchronous=FULL commit (what a snapshot unit pays) p50 ${commit.p50.toFixed(1)} ms, p99 ${commit.p99.toFixed(1)} ms (a two-file rollback-journal FULL commit: p50 ${twoFile.p50.toFixed(1)}, p99 ${twoFile.p99.toFixed(1)} ms); idle event loop delay p99 ${idle.p99.toFixed(1)} ms, max ${idle.max.toFixed(1)} ms`);
  const ratios = (rate: number): string => `${(rate / copy).toFixed(2)}x the conversation_records copy, ${(rate / copyAll).toFixed(2)}x the every-table copy`;

  if (!skip.has('uncapped')) {
    const s = stage('uncapped', generated.path);
    const windowed = uncappedSeconds > 0;
    const first = await service(s.env, {
      pace: 'max',
      label: 'uncapped',
      until: (st, t) => (windowed && t >= uncappedSeconds) || (st.migration.pass === 'copy' && st.migration.rowsDone >= st.migration.rowsTotal / 4),
    });
    if (windowed && first.last.pass !== 'copy') {
      const m = first.last;
      print(
        `uncapped, stopped after ${first.seconds.toFixed(0)} s: ${m.phase} ${m.pass ?? ''} at ${m.percent.toFixed(2)}% (${m.rowsDone}/${m.rowsTotal} rows), payload IO ${mb(m.ioBytes)} MiB = ${mb(m.ioBytes / first.seconds)} MiB/s = ${ratios(m.ioBytes / first.seconds)}; whole migration at this rate ≈ ${(first.seconds / Math.max(m.percent / 100, 1e-9) / 60).toFixed(0)} min`,
      );
      printPasses('uncapped', first.passes, ratios);
      print(`  unit latency (the chunks sharing one commit, commits included, and the index merges between copy units) p99 ${first.chunkP99Worst.toFixed(1)} ms (worst window of 1000 units); max ${m.chunkMs.max.toFixed(1)} ms`);
      print(`  broker thread event loop delay p99 ${loopMs(first.loop, 99).toFixed(1)} ms = ${(loopMs(first.loop, 99) / idle.p99).toFixed(2)}x idle; max ${(first.loop.max / 1e6).toFixed(1)} ms`);
    } else {
      // Resume in the copy pass: a child continues the copy, is killed after 200 chunks, and a second child restarts.
      let copies = 0;
      await child(s.env, (e) => e.kind === 'copy' && ++copies >= 200);
      const copyResume = await restartCost(s.env, 'copy');
      print(
        Number.isNaN(copyResume.seconds)
          ? 'resume after a kill in copy: n/a (the copy pass had ended before the kill)'
          : `resume after a kill in copy: next copy chunk ${copyResume.seconds.toFixed(2)} s after the restart (process start included; no revalidation in copy)`,
      );
      const second = await service(s.env, { pace: 'max', label: 'uncapped', until: null });
      const seconds = first.seconds + second.seconds;
      const io = first.last.ioBytes + second.last.ioBytes;
      const payloadRate = generated.payload / seconds;
      print(`uncapped: ${second.last.phase} in ${seconds.toFixed(0)} s of service time (plus the copy-resume trial); payload IO ${mb(io)} MiB = ${mb(io / seconds)} MiB/s = ${ratios(io / seconds)}`);
      print(`  legacy payload (each byte once, all four passes) ${mb(payloadRate)} MiB/s = ${ratios(payloadRate)}`);
      printPasses('uncapped', first.passes, ratios);
      printPasses('uncapped (after the resume)', second.passes, ratios);
      const chunkP99 = Math.max(first.chunkP99Worst, second.chunkP99Worst);
      const loopP99 = Math.max(loopMs(first.loop, 99), loopMs(second.loop, 99));
      print(`  unit latency (the chunks sharing one commit, commits included, and the index merges between copy units) p99 ${chunkP99.toFixed(1)} ms (worst window of 1000 units); max ${Math.max(first.last.chunkMs.max, second.last.chunkMs.max).toFixed(1)} ms`);
      print(`  broker thread event loop delay p99 ${loopP99.toFixed(1)} ms = ${(loopP99 / idle.p99).toFixed(2)}x idle; max ${(Math.max(first.loop.max, second.loop.max) / 1e6).toFixed(1)} ms`);
    }
    rmSync(s.root, { recursive: true, force: true });
  }
  if (!skip.has('paced')) {
    const s = stage('paced', generated.path);
    const rate = 8 * MiB;
    const run = await service({ ...s.env, AGENT_BRIDGE_HISTORY_MIGRATION_IO_BYTES_PER_SECOND: String(rate) }, { pace: 'spec', label: 'paced', until: (_, t) => t >= pacedSeconds });
    const span = [...run.passes.values()].reduce((a, b) => ({ first: Math.min(a.first, b.first), last: Math.max(a.last, b.last), bytesFirst: Math.min(a.bytesFirst, b.bytesFirst), bytesLast: Math.max(a.bytesLast, b.bytesLast) }));
    const measured = (span.bytesLast - span.bytesFirst) / (span.last - span.first);
    print(
      `paced at 8 MiB/s for ${pacedSeconds} s: measured ${mb(measured)} MiB/s (${((measured / rate) * 100).toFixed(1)}% of the pace) in ${run.last.pass}; unit latency p99 ${run.chunkP99Worst.toFixed(1)} ms, max ${run.last.chunkMs.max.toFixed(1)} ms; event loop delay p99 ${loopMs(run.loop, 99).toFixed(1)} ms = ${(loopMs(run.loop, 99) / idle.p99).toFixed(2)}x idle`,
    );
    rmSync(s.root, { recursive: true, force: true });
  }
  if (!skip.has('resume')) {
    const s = stage('resume', generated.path);
    const killed = await child(s.env, (e, t) => e.kind === 'snapshot' && t >= killAfter);
    const saved = killed.events.filter((e) => e.kind === 'snapshot');
    print(`resume: killed ${killAfter} s into the snapshot pass after ${saved.length} chunks (${mb(saved.reduce((n, e) => n + (e.bytes ?? 0), 0))} MiB)`);
    const cost = await restartCost(s.env, 'snapshot');
    print(`  next snapshot chunk ${cost.seconds.toFixed(2)} s after the restart (process start included), after revalidating ${cost.revalidated} saved chunks (${mb(cost.revalidatedBytes)} MiB) against the new view`);
    rmSync(s.root, { recursive: true, force: true });
  }
}

await main();
print(`load at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
