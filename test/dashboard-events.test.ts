// The event hub of /api/events, with a stand-in reader: one `records`
// event per look however many records arrived (coalesced), status when it
// changes, a heartbeat comment, and a client that does not read dropped once
// its queue passes the bound, never buffered further.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Changes } from '../protocols/dashboard.ts';
import { EventHub } from '../src/dashboard/events.ts';
import type { ReaderPool } from '../src/dashboard/reader-pool.ts';

function fakePool(state: { max: number; status: object }): ReaderPool {
  const api = {
    changes: async (since: number): Promise<Changes> => ({
      maxRecord: state.max,
      conversations: state.max > since ? [{ id: 'claude:x', lastRecord: state.max }] : [],
      more: false,
    }),
    status: async () => state.status,
  };
  return { run: async (method: 'changes', since: number) => api[method](since), status: api.status } as unknown as ReaderPool;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readFor(stream: ReadableStream<Uint8Array>, ms: number): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const next = await Promise.race([reader.read(), sleep(until - Date.now()).then(() => null)]);
    if (next === null || next.done) break;
    text += decoder.decode(next.value);
  }
  reader.releaseLock();
  return text;
}

describe('dashboard event hub', () => {
  test('coalesces new records into one event per look, sends status and heartbeats', async () => {
    const state = { max: 10, status: { phase: 'idle' } };
    const hub = new EventHub(fakePool(state), { tickMs: 40, heartbeatMs: 60 });
    const stream = hub.open();
    const first = await readFor(stream, 100);
    assert.match(first, /^retry: 3000/);
    assert.match(first, /event: hello\ndata: \{"maxRecord":10\}/);
    assert.match(first, /event: status\ndata: \{"phase":"idle"\}/);
    for (let i = 0; i < 50; i++) state.max++;
    state.status = { phase: 'ingesting' };
    const second = await readFor(stream, 130);
    const records = second.match(/event: records\n/g) ?? [];
    assert.equal(records.length, 1, 'fifty records in one look are one event');
    assert.match(second, /"maxRecord":60/);
    assert.match(second, /: ping\n\n/);
    assert.match(second, /"phase":"ingesting"/);
    hub.closeAll();
    assert.equal(hub.size, 0);
  });

  test('a client that does not read is dropped at its buffer bound', async () => {
    const state = { max: 1, status: { filler: 'x'.repeat(4000) } };
    const hub = new EventHub(fakePool(state), { tickMs: 5, heartbeatMs: 1000, bufferBytes: 16 * 1024 });
    const stream = hub.open();
    for (let i = 0; i < 200 && hub.size > 0; i++) {
      state.max++;
      state.status = { filler: `${i}`.padEnd(4000, 'y') };
      await sleep(6);
    }
    assert.equal(hub.size, 0, 'dropped');
    assert.equal(hub.dropped, 1);
    await assert.rejects(stream.getReader().read(), /does not read its events/);
  });
});
