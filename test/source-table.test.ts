// The source table's whole-table answers (backlog bytes, gone files, vanished
// roots) are memoised between changes of the table, because status asks for
// them every second. Random sequences of observations, commits and moves
// must give exactly what a fresh scan of the same states gives.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SourcePlan } from '../protocols/sources.ts';
import { SourceTable, type Observation } from '../src/ingest/source-table.ts';
import { prng } from './helpers/home.ts';

const ROOTS = ['/h/.claude/projects', '/h/.codex/sessions'];

function plan(i: number): SourcePlan {
  const path = join(ROOTS[i % 2] as string, `p${i % 3}`, `s${i}.jsonl`);
  return { id: path, path, format: i % 2 === 0 ? 'claude' : 'codex', ownAgentId: null, conversation: { id: `c${i}`, agent: i % 2 === 0 ? 'claude' : 'codex', session: `s${i}`, parent: null, kind: 'transcript' } };
}

describe('source table', () => {
  it('answers backlog, gone and vanished roots after every change as a fresh scan does', () => {
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
          const offset = state.observed?.size ?? 0;
          table.committed(state.plan.id, { ...state.cursor, identity: `ino${i}`, offset, size: offset });
        } else if (roll < 0.9) {
          table.observe(state, null, { code: 'SOURCE_GONE', message: 'gone', step: 'stat' } as never);
        } else {
          table.observe(state, state.observed);
        }
        // Ask before and after: a memoised answer must never outlive a change.
        const states = [...table.all()];
        const backlog = states.reduce((n, s) => n + (s.observed === null ? 0 : Math.max(0, s.observed.size - s.cursor.offset)), 0);
        assert.equal(table.totalBacklogBytes(), backlog, `seed ${seed} step ${step}: backlog`);
        const gone = states.filter((s) => s.gone).length;
        assert.equal(table.goneCount(true), gone, `seed ${seed} step ${step}: gone`);
        const vanished = ROOTS.filter((root) => {
          const under = states.filter((s) => s.plan.path.startsWith(`${root}/`));
          return under.length > 0 && under.every((s) => s.gone);
        });
        assert.deepEqual(table.vanishedRoots(ROOTS, true, () => false).map((v) => v.root).sort(), vanished.sort(), `seed ${seed} step ${step}: vanished roots`);
        // The folders are asked on every call, memoised or not.
        assert.deepEqual(table.vanishedRoots(ROOTS, true, () => true), []);
      }
    }
  });

});
