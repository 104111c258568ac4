// A process that starts a service thread (the CLI, the dashboard, a broker
// embedding HistoryService) lets its heaps grow to 1.5 times their live data
// at most (src/service/heap-growth.ts), unless node was started with its own
// --heap-growing-percent. Measured in child processes that keep the same
// live data and make the same garbage: heap sizes, not times.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HEAP_GROWING_PERCENT, hostChoseHeapGrowth } from '../src/service/heap-growth.ts';
import { repoRoot } from './helpers/home.ts';

function peakHeap(nodeFlags: string[], mode: 'spawn' | 'none'): number {
  const out = execFileSync(process.execPath, [...nodeFlags, '--import', 'tsx', join(repoRoot, 'test/scripts/heap-churn.ts'), mode], { encoding: 'utf8' });
  return (JSON.parse(out) as { peakBytes: number }).peakBytes;
}

describe('heap growth', () => {
  it('recognises a host that chose its own growth on the command line', () => {
    assert.equal(hostChoseHeapGrowth(['--heap-growing-percent=300']), true);
    assert.equal(hostChoseHeapGrowth(['--heap_growing_percent=10']), true);
    assert.equal(hostChoseHeapGrowth(['--heap-growing-percent', '10']), true);
    assert.equal(hostChoseHeapGrowth(['--max-old-space-size=512', '--import', 'tsx']), false);
    assert.equal(hostChoseHeapGrowth(['--heap-growing-percentage=10']), false);
    assert.equal(hostChoseHeapGrowth([]), false);
  });

  it('starting a service thread sets the growth HEAP_GROWING_PERCENT names, and a host flag wins', () => {
    // V8's own growth is dynamic, so the references are fixed by hand: the
    // same percent on the command line, and a host's 300 % (4x).
    const limited = peakHeap([], 'spawn');
    const byHand = peakHeap([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`], 'none');
    const hostChosen = peakHeap(['--heap-growing-percent=300'], 'spawn');
    const mib = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`;
    const figures = `service thread ${mib(limited)}, ${HEAP_GROWING_PERCENT} % by hand ${mib(byHand)}, host's 300 % and a service thread ${mib(hostChosen)}`;
    assert.ok(Math.abs(limited - byHand) <= 0.15 * byHand, `a service thread limits the heap's growth as the flag by hand does (${figures})`);
    assert.ok(limited < 0.7 * hostChosen, `the host's own flag is left in force (${figures})`);
  });
});
