// bench/mirror-replay: project replicas synced from scratch out of a central
// store that is already captured, in this thread, step by step, with
// nothing else running: the latency of each mirror step alone (what capture
// waits for when a step runs between its batches), and how the replicas'
// FTS5 indexes end up (segments, levels).
//
//   node --import tsx bench/mirror-replay.ts --store <history.db of a captured corpus> [--work DIR] [--seconds S]
//
// The store is only read (MirrorSync opens it read-only). The bridge home
// is `--work` (a custom home), so replicas go into <work>/project-mirrors/
// and no project folder or Git repository is needed or touched; the folder
// is emptied first. With --seconds the run stops after S seconds of steps;
// without, when every replica is synced. Prints step p50/p90/p99/max (steps
// that did work: ids checked, records copied, or over 0.5 ms, which an idle
// step never is), then by kind (checked ids, copied records only, neither:
// a merge or nothing), steps per second, records copied, and the replicas'
// FTS5 segment counts.

import { existsSync, linkSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { LIMITS } from '../src/config/limits.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { MirrorSync } from '../src/mirror/mirror-sync.ts';
import { summarize } from './lib/stats.ts';

const { values } = parseArgs({
  options: { store: { type: 'string' }, work: { type: 'string', default: '/tmp/bench-mirror-replay' }, seconds: { type: 'string', default: '0' } },
  strict: true,
});
if (values.store === undefined) throw new Error('usage: bench/mirror-replay.ts --store <history.db> [--work DIR] [--seconds S]');
const store = resolve(values.store);
const work = resolve(values.work as string);
const seconds = Number(values.seconds);

// The work home holds a hard link to the store (read only), so its paths resolve as a custom bridge home's.
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
for (const suffix of ['', '-wal']) if (existsSync(store + suffix)) linkSync(store + suffix, join(work, `history.db${suffix}`));
const env = { HOME: join(work, 'user'), AGENT_BRIDGE_HOME: work, PATH: process.env.PATH };
const sync = new MirrorSync({ paths: resolvePaths(env), env, limits: LIMITS, mode: 'once' });

const latencies: number[] = [];
// By what the step did: it checked ids (and may have copied too), copied records, or neither (a merge, or nothing).
const byKind = { check: [] as number[], copy: [] as number[], other: [] as number[] };
const started = performance.now();
let copied = 0;
for (;;) {
  const t = performance.now();
  const step = await sync.step();
  const ms = performance.now() - t;
  if (step.copied > 0 || step.checked > 0 || ms > 0.5) latencies.push(ms);
  (step.checked > 0 ? byKind.check : step.copied > 0 ? byKind.copy : byKind.other).push(ms);
  copied += step.copied;
  const elapsed = (performance.now() - started) / 1000;
  if (!step.more || (seconds > 0 && elapsed >= seconds)) break;
  // A timer yield between steps, as the mirror actor has between capture batches.
  await new Promise((r) => setImmediate(r));
}
const elapsed = (performance.now() - started) / 1000;
const own = summarize(latencies);
const timed = sync.status().steps;
sync.close();

const f = (n: number): string => n.toFixed(2);
console.log(`mirror replay of ${store}: ${elapsed.toFixed(1)} s, ${own.count} steps (${f(own.count / elapsed)}/s), ${copied} records copied`);
console.log(`  step (prepare included) p50 ${f(own.p50)} / p90 ${f(own.p90)} / p99 ${f(own.p99)} / max ${f(own.max)} ms`);
console.log(`  step (check and copy, MirrorSync's window of the last 1000) p50 ${f(timed.p50Ms)} / p99 ${f(timed.p99Ms)} ms`);
for (const [kind, samples] of Object.entries(byKind)) {
  const s = summarize(samples);
  console.log(`    ${kind.padEnd(5)} ${String(s.count).padStart(6)} steps  p50 ${f(s.p50)} / p99 ${f(s.p99)} / max ${f(s.max)} ms`);
}

// FTS5 segments per replica (each is a b-tree a query reads).
const dir = join(work, 'project-mirrors');
const replicas = existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.db')) : [];
let worst = { name: '', segments: 0 };
let total = 0;
for (const name of replicas) {
  const db = new Database(join(dir, name), { readonly: true });
  try {
    const segments = db.prepare('SELECT count(DISTINCT segid) FROM history_fts_idx').pluck().get() as number;
    total += segments;
    if (segments > worst.segments) worst = { name, segments };
  } catch {
    // a replica without FTS5
  } finally {
    db.close();
  }
}
console.log(`  ${replicas.length} replicas; FTS5 segments: ${total} in all, at most ${worst.segments} in one (${worst.name})`);
