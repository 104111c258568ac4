// The source table's whole-table answers (backlog bytes, gone files, vanished
// roots) are kept in step with changes of the table or memoised between them,
// because status asks for them every second. Random sequences of
// observations, commits and moves must give exactly what a fresh scan of the same states gives. The pending
// sources are asked from a candidate set kept by those changes; they too must
// be what asking every source gives, also as time settles a waiting tail and
// passes release a replaced file, and the next one to visit must be one a
// sort of every pending source puts first.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SourcePlan } from '../protocols/sources.ts';
import { SourceTable, type Observation, type SourceState } from '../src/ingest/source-table.ts';
import { prng } from './helpers/home.ts';

const ROOTS = ['/h/.claude/projects', '/h/.codex/sessions'];

function plan(i: number): SourcePlan {
  const path = join(ROOTS[i % 2] as string, `p${i % 3}`, `s${i}.jsonl`);
  return { id: path, path, format: i % 2 === 0 ? 'claude' : 'codex', ownAgentId: null, conversation: { id: `c${i}`, agent: i % 2 === 0 ? 'claude' : 'codex', session: `s${i}`, parent: null, kind: 'transcript' } };
}

describe('source table', () => {
  it('answers backlog, gone, vanished roots and problems after every change as a fresh scan does', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const random = prng(seed);
      const table = new SourceTable([]);
      const sizes = new Map<string, number>();
      for (let step = 0; step < 200; step++) {
        const i = Math.floor(random() * 12);
        const state = table.get(plan(i).id) ?? table.activate(plan(i));
        const roll = random();
        if (roll < 0.45) {
          const size = (sizes.get(state.plan.id) ?? 0) + Math.floor(random() * 1000);
          sizes.set(state.plan.id, size);
          const seen: Observation = { identity: `ino${i}`, size, mtimeMs: step };
          table.observe(state, seen);
        } else if (roll < 0.75) {
          // A lane may have learnt of bytes the last observation has not seen (its stat is newer).
          const offset = state.observed?.size ?? 0;
          const size = offset + (random() < 0.3 ? Math.floor(random() * 500) : 0);
          table.committed(state.plan.id, { ...state.cursor, identity: `ino${i}`, offset, size, mtimeMs: step });
        } else if (roll < 0.85) {
          table.observe(state, null, { code: 'SOURCE_GONE', message: 'gone', step: 'stat' } as never);
        } else if (roll < 0.9) {
          table.observe(state, state.observed, { code: 'READ_FAILED', message: 'unreadable', step: 'read' } as never);
        } else {
          table.observe(state, state.observed);
        }
        // Ask before and after: a memoised answer must never outlive a change.
        const states = [...table.all()];
        const backlog = states.reduce((n, s) => n + table.backlogBytes(s), 0);
        assert.equal(table.totalBacklogBytes(), backlog, `seed ${seed} step ${step}: backlog`);
        const gone = states.filter((s) => s.gone).length;
        assert.equal(table.goneCount(true), gone, `seed ${seed} step ${step}: gone`);
        const vanished = ROOTS.filter((root) => {
          const under = states.filter((s) => s.plan.path.startsWith(`${root}/`));
          return under.length > 0 && under.every((s) => s.gone);
        });
        assert.deepEqual(table.vanishedRoots(ROOTS, true, () => false).map((v) => v.root).sort(), vanished.sort(), `seed ${seed} step ${step}: vanished roots`);
        const failing = states.filter((s) => s.problem !== null).map((s) => ({ path: s.plan.path, code: s.problem?.code, message: s.problem?.message }));
        assert.deepEqual(table.sourceProblems(), failing, `seed ${seed} step ${step}: problems`);
        // The folders are asked on every call, memoised or not.
        assert.deepEqual(table.vanishedRoots(ROOTS, true, () => true), []);
      }
    }
  });

  it('counts as backlog the bytes the newer of the last stat and the lane\'s cursor knows of', () => {
    const table = new SourceTable([]);
    const state = table.activate(plan(0));
    table.observe(state, { identity: 'ino0', size: 2_000, mtimeMs: 10 });
    assert.equal(table.totalBacklogBytes(), 2_000, 'observed, nothing captured');
    // The file was still being written when observed: the lane's stat found 20,000 bytes.
    table.committed(state.plan.id, { ...state.cursor, identity: 'ino0', offset: 3_000, size: 20_000, mtimeMs: 11 });
    assert.equal(table.backlogBytes(state), 17_000, 'the lane knows the file grew');
    assert.equal(table.totalBacklogBytes(), 17_000);
    // A later stat of the file, truncated in place: the newer observation counts.
    table.observe(state, { identity: 'ino0', size: 1_000, mtimeMs: 12 });
    assert.equal(table.totalBacklogBytes(), 0, 'a truncated file has nothing waiting past the cursor');
    // Replaced by another file: only its observation counts.
    table.observe(state, { identity: 'ino9', size: 5_000, mtimeMs: 13 });
    table.committed(state.plan.id, { ...state.cursor, identity: 'ino0', offset: 3_000, size: 90_000, mtimeMs: 14 });
    assert.equal(table.totalBacklogBytes(), 2_000);
  });

  it('finds the pending sources a scan of every source finds, as changes, time and passes go by', () => {
    let asked = 0;
    let dirtyFirst = 0;
    let visitedFirst = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const random = prng(seed);
      const table = new SourceTable([]);
      const sizes = new Map<string, number>();
      const busy = new Set<string>();
      let now = 0;
      const settled = (mtimeMs: number): boolean => now - mtimeMs > 5;
      for (let step = 0; step < 300; step++) {
        now += Math.floor(random() * 4);
        const i = Math.floor(random() * 12);
        const state = table.get(plan(i).id) ?? table.activate(plan(i));
        const roll = random();
        if (roll < 0.3) {
          const size = (sizes.get(state.plan.id) ?? 0) + Math.floor(random() * 3) * 100;
          sizes.set(state.plan.id, size);
          // Now and then the file is replaced (another identity, smaller).
          const identity = random() < 0.1 ? `ino${i}-${step}` : (state.observed?.identity ?? `ino${i}`);
          table.observe(state, { identity, size, mtimeMs: now });
        } else if (roll < 0.5) {
          const seen = state.observed;
          const offset = seen === null ? 0 : Math.max(0, seen.size - Math.floor(random() * 2) * 50);
          table.committed(state.plan.id, { ...state.cursor, identity: seen?.identity ?? `ino${i}`, offset, size: offset, mtimeMs: seen?.mtimeMs ?? 0 });
        } else if (roll < 0.62) {
          table.waitForTail(state, random() < 0.7 ? state.observed : null);
        } else if (roll < 0.7) {
          table.passRunning = random() < 0.5;
          table.passes += random() < 0.5 ? 1 : 0;
        } else if (roll < 0.78) {
          if (busy.has(state.plan.id)) busy.delete(state.plan.id);
          else busy.add(state.plan.id);
        } else if (roll < 0.84) {
          table.observe(state, null, { code: 'SOURCE_GONE', message: 'gone', step: 'stat' } as never);
        } else if (roll < 0.9) {
          table.observe(state, null, random() < 0.5 ? null : ({ code: 'READ_FAILED', message: 'unreadable', step: 'read' } as never));
        } else if (roll < 0.95) {
          table.visit(state);
        } else if (roll < 0.98) {
          table.markDirty(state);
        }
        // Otherwise only time passes.
        const isBusy = (s: { plan: SourcePlan }): boolean => busy.has(s.plan.id);
        const scanned = [...table.all()].filter((s) => !isBusy(s) && table.isPending(s, settled));
        const key = (s: SourceState): string => `${s.dirty ? 0 : 1}:${String(s.visits).padStart(4, '0')}`;
        const next = table.nextPending(settled, isBusy);
        const best = scanned.map(key).sort()[0];
        assert.equal(next === undefined ? undefined : key(next), best, `seed ${seed} step ${step}: the next source's key`);
        assert.ok(next === undefined || scanned.includes(next), `seed ${seed} step ${step}: the next source is pending and not busy`);
        assert.equal(table.hasPending(settled, isBusy), scanned.length > 0, `seed ${seed} step ${step}: any pending`);
        assert.equal(table.pendingCount(settled, isBusy), scanned.length, `seed ${seed} step ${step}: pending count`);
        asked += scanned.length;
        if (next !== undefined && next.dirty) dirtyFirst++;
        if (next !== undefined && next.visits > 0) visitedFirst++;
        // As the scheduler does, the next source often gets its visit.
        if (next !== undefined && random() < 0.4) table.visit(next);
      }
    }
    // The sequences reach pending sources at all, and dirty and visited ones among them (else they would prove little).
    assert.ok(asked > 1000, `pending sources seen: ${asked}`);
    assert.ok(dirtyFirst > 50 && visitedFirst > 50, `next sources dirty: ${dirtyFirst}, visited before: ${visitedFirst}`);
  });

  it('puts dirty sources first, then the least visited, then in the order they became candidates', () => {
    const table = new SourceTable([]);
    const states = [0, 1, 2, 3, 4].map((i) => table.activate(plan(i)));
    for (const [n, state] of states.entries()) {
      for (let v = 0; v < ([5, 1, 3, 2, 1][n] as number); v++) table.visit(state);
      table.observe(state, { identity: `ino${n}`, size: 10, mtimeMs: 0 });
    }
    table.markDirty(states[2] as SourceState);
    // The order in which the sources would be visited: each one taken is busy for the next question.
    const order = (): string[] => {
      const taken = new Set<SourceState>();
      for (let next = table.nextPending(() => true, (s) => taken.has(s)); next !== undefined; next = table.nextPending(() => true, (s) => taken.has(s))) taken.add(next);
      return [...taken].map((s) => s.plan.id);
    };
    assert.deepEqual(order(), [2, 1, 4, 3, 0].map((i) => plan(i).id));
    // A visit clears the mark and counts: source 2 now has 4 visits and goes last but one.
    table.visit(states[2] as SourceState);
    assert.equal(states[2]?.dirty, false);
    assert.equal(states[2]?.visits, 4);
    assert.deepEqual(order(), [1, 4, 3, 2, 0].map((i) => plan(i).id));
  });

  it('asks only the first candidates for the next source when one of them has the best key', () => {
    const table = new SourceTable([]);
    const states = Array.from({ length: 10_000 }, (_, i) => table.activate(plan(i)));
    for (const [i, state] of states.entries()) table.observe(state, { identity: `ino${i}`, size: 10, mtimeMs: 0 });
    // Sources 0 and 1 are being read and had a visit; every other one is unvisited and pending.
    const reading = new Set(states.slice(0, 2));
    for (const state of reading) table.visit(state);
    let asked = 0;
    const busy = (s: SourceState): boolean => {
      asked++;
      return reading.has(s);
    };
    assert.equal(table.nextPending(() => true, busy), states[2]);
    assert.ok(asked <= 3, `candidates asked: ${asked}`);
    // A dirty source anywhere goes first: the scan goes on until it finds it.
    table.markDirty(states[7_000] as SourceState);
    asked = 0;
    assert.equal(table.nextPending(() => true, busy), states[7_000]);
    assert.ok(asked >= 7_000 && asked <= 7_001, `candidates asked: ${asked}`);
    // Its visit clears the mark: the first unvisited candidate is the best again.
    table.visit(states[7_000] as SourceState);
    reading.add(states[7_000] as SourceState);
    asked = 0;
    assert.equal(table.nextPending(() => true, busy), states[2]);
    assert.ok(asked <= 3, `candidates asked after the dirty one's visit: ${asked}`);
    // Counting still asks them all.
    asked = 0;
    assert.equal(table.pendingCount(() => true, busy), 9_997);
    assert.equal(asked, 10_000);
  });

  it('gives the lately changed sources to the poll, a bounded number in turns, and lets old changes go', () => {
    const table = new SourceTable([]);
    const states = Array.from({ length: 10 }, (_, i) => table.activate(plan(i)));
    // Sources 0-5 changed at 1000 + i; 6-9 long ago.
    for (const [i, state] of states.entries()) table.observe(state, { identity: `ino${i}`, size: 10, mtimeMs: i < 6 ? 1000 + i : 5 });
    const id = (s: { plan: SourcePlan }): string => s.plan.id;
    const recent = states.slice(0, 6).map(id);
    const first = table.recentlyChanged(1000, 4).map(id);
    assert.equal(first.length, 4);
    const second = table.recentlyChanged(1000, 4).map(id);
    // Every recent source gets its turn within two polls; none of the old ones ever comes.
    assert.deepEqual([...new Set([...first, ...second])].sort(), [...recent].sort());
    // A window that moves past some: they leave, and come back only with a new change.
    assert.deepEqual(table.recentlyChanged(1004, 10).map(id).sort(), [states[4], states[5]].map((s) => id(s as (typeof states)[number])).sort());
    assert.deepEqual(table.recentlyChanged(0, 10).map(id).sort(), [states[4], states[5]].map((s) => id(s as (typeof states)[number])).sort(), 'sources that fell out of the window stay out');
    const revived = states[0] as (typeof states)[number];
    table.observe(revived, { identity: 'ino0', size: 20, mtimeMs: 2000 });
    assert.ok(table.recentlyChanged(1004, 10).map(id).includes(id(revived)), 'a new change brings a source back');
    // An observation that did not change adds nothing.
    const quiet = states[7] as (typeof states)[number];
    table.observe(quiet, quiet.observed);
    assert.ok(!table.recentlyChanged(0, 10).map(id).includes(id(quiet)));
  });

  it('walks every active source in activation order for the round robin', () => {
    const table = new SourceTable([]);
    assert.equal(table.nth(0), undefined);
    const states = [0, 1, 2].map((i) => table.activate(plan(i)));
    table.activate(plan(1)); // activated again: no second place in the order
    assert.deepEqual([0, 1, 2, 3, 4].map((i) => table.nth(i)), [states[0], states[1], states[2], states[0], states[1]]);
  });
});
