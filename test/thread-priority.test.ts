// Ingestion runs at a lower CPU priority than the broker's thread (Linux):
// the history worker lowers its own nice value before it starts the parser
// pool, whose threads inherit it; the thread that drives HistoryService keeps
// its priority. AGENT_BRIDGE_HISTORY_NICE=0 switches this off.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { HistoryService } from '../src/service/history-service.ts';
import { envFor, fixtureHome } from './helpers/home.ts';

/** Nice value of every thread of this process, from /proc/self/task/<tid>/stat (field 19). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      nices.set(Number(tid), Number(fields[16]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return nices;
}

async function whileIngesting<T>(extraEnv: Record<string, string>, look: () => T): Promise<T> {
  const { home } = fixtureHome();
  const env = envFor(home, extraEnv);
  if (!('AGENT_BRIDGE_HISTORY_NICE' in extraEnv)) delete env.AGENT_BRIDGE_HISTORY_NICE;
  const service = new HistoryService({ env, mode: 'serve', pace: 'max' });
  await service.start();
  try {
    for (let i = 0; i < 200; i++) {
      if ((await service.status()).batches.committed > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return look();
  } finally {
    await service.stop();
  }
}

describe('thread priority', { skip: process.platform !== 'linux' }, () => {
  it('runs the history worker and parser threads at nice +10, the broker thread unchanged', async () => {
    const before = threadNices().get(process.pid) as number;
    const nices = await whileIngesting({}, threadNices);
    assert.equal(nices.get(process.pid), before, 'the main thread keeps its nice value');
    const lowered = [...nices.values()].filter((n) => n === Math.min(19, before + 10));
    assert.ok(lowered.length >= 2, `the history worker and a parser thread are lowered (nice values: ${[...nices.values()].join(' ')})`);
  });

  it('AGENT_BRIDGE_HISTORY_NICE=0 leaves every thread at the broker priority', async () => {
    const before = threadNices().get(process.pid) as number;
    const nices = await whileIngesting({ AGENT_BRIDGE_HISTORY_NICE: '0' }, threadNices);
    assert.deepEqual([...new Set(nices.values())], [before]);
  });
});
