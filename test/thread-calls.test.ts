// The calls wire of reader threads (src/service/thread-calls.ts) on real
// worker threads: values and JSON text made in the thread, replies paired by
// id whatever their order, errors that keep their code, and a thread that
// exits failing every waiting and later call with STOPPED. Then the reader
// thread itself (src/service/reader-thread.ts) on a captured fixture home.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HistoryError } from '../protocols/errors.ts';
import { LIMITS } from '../src/config/limits.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { HistoryReader } from '../src/read/history-reader.ts';
import { ReaderThread } from '../src/service/reader-thread.ts';
import { ThreadCalls } from '../src/service/thread-calls.ts';
import { spawnThread } from '../src/service/threads.ts';
import { type FixtureHome, fixtureHome } from './helpers/search-homes.ts';
import type { callsThreadApi } from './scripts/calls-thread.ts';

type Api = typeof callsThreadApi;

function start(youngGenerationMb?: number): { calls: ThreadCalls<Api>; stop: () => Promise<number> } {
  const worker = spawnThread('test/scripts/calls-thread.ts', 'calls-thread-test', youngGenerationMb === undefined ? {} : { youngGenerationMb });
  return { calls: new ThreadCalls<Api>(worker, 'the test thread'), stop: () => worker.terminate() };
}

function isHistoryError(code: string, message?: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof HistoryError, `a HistoryError, not ${String(error)}`);
    assert.equal(error.code, code);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  };
}

describe('thread calls', () => {
  test('a thread runs with the young generation it was started with (the history worker has a smaller one)', async () => {
    assert.notEqual(LIMITS.historyWorkerYoungGenerationMb, LIMITS.workerYoungGenerationMb);
    for (const [asked, expected] of [
      [undefined, LIMITS.workerYoungGenerationMb],
      [LIMITS.historyWorkerYoungGenerationMb, LIMITS.historyWorkerYoungGenerationMb],
    ] as const) {
      const { calls, stop } = start(asked);
      try {
        assert.equal(await calls.call('youngGenerationMb'), expected);
      } finally {
        await stop();
      }
    }
  });

  test('a value comes back as itself, or as JSON text made in the thread', async () => {
    const { calls, stop } = start();
    try {
      const value = { text: 'naïve 🦀 </script>', n: [1, 2.5, -0], nested: { empty: null, yes: true } };
      assert.deepEqual(await calls.call('echo', value), value);
      const text = await calls.callJson('echo', value);
      assert.equal(typeof text, 'string');
      assert.equal(text, JSON.stringify(value));
      assert.equal(await calls.callJson('echo', null), 'null');
    } finally {
      await stop();
    }
  });

  test('replies are paired with their calls by id, in whatever order they come', async () => {
    const { calls, stop } = start();
    try {
      const slow = calls.call('later', 80, 'slow');
      const fast = calls.call('later', 0, 'fast');
      assert.equal(calls.inFlight, 2);
      const order: string[] = [];
      const [slowValue, fastValue] = await Promise.all([slow.then((v) => (order.push('slow call'), v)), fast.then((v) => (order.push('fast call'), v))]);
      assert.equal(slowValue, 'slow', 'each call got its own reply');
      assert.equal(fastValue, 'fast');
      assert.deepEqual(order, ['fast call', 'slow call'], 'the later call was answered first');
      assert.equal(calls.inFlight, 0);
    } finally {
      await stop();
    }
  });

  test('an error crosses with its code, message and step; any other error becomes a HistoryError', async () => {
    const { calls, stop } = start();
    try {
      await assert.rejects(calls.call('busy'), (error: unknown) => {
        isHistoryError('STORE_BUSY', /the store is busy/)(error);
        assert.equal((error as HistoryError).step, 'test step');
        return true;
      });
      await assert.rejects(calls.call('crash'), (error: unknown) => {
        assert.ok(error instanceof HistoryError);
        assert.notEqual(error.code, 'STOPPED');
        assert.match(error.message, /not a HistoryError/);
        return true;
      });
      const untyped = calls.call.bind(calls) as (method: string) => Promise<unknown>;
      await assert.rejects(untyped('nope'), isHistoryError('BAD_INPUT', /no call named "nope"/));
      await assert.rejects(untyped('toString'), isHistoryError('BAD_INPUT'), 'inherited properties are not calls');
      await assert.rejects(calls.call('echo', () => 1), /could not be cloned/, 'an argument that cannot cross is refused here');
      assert.equal(calls.inFlight, 0, 'and nothing waits for it');
      await assert.rejects(calls.call('unclonable'), isHistoryError('INTERNAL', /could not be cloned/), 'a value that cannot cross comes back as an error');
      assert.deepEqual(await calls.call('echo', 'still answering'), 'still answering');
    } finally {
      await stop();
    }
  });

  test('a thread that exits fails the calls waiting and every later one with STOPPED', async () => {
    const { calls, stop } = start();
    try {
      const waiting = calls.call('hang');
      assert.equal(calls.ended, null);
      const exit = calls.call('exit');
      await assert.rejects(waiting, isHistoryError('STOPPED', /the test thread exited with code 3/));
      await assert.rejects(exit, isHistoryError('STOPPED'));
      assert.equal((calls.ended as HistoryError | null)?.code, 'STOPPED', 'the thread is known to have ended');
      assert.equal(calls.inFlight, 0);
      await assert.rejects(calls.call('echo', 1), isHistoryError('STOPPED'));
    } finally {
      await stop();
    }
  });
});

describe('reader thread', () => {
  let fixture: FixtureHome;
  let reader: HistoryReader;
  let thread: ReaderThread;

  before(async () => {
    fixture = await fixtureHome({ fts: true });
    reader = new HistoryReader(resolvePaths(fixture.env));
    thread = new ReaderThread(fixture.env, 'reader-thread-test');
  });
  after(async () => {
    reader.close();
    await thread.stop();
  });

  test('answers as the reader does, and its JSON text is the same answer', async () => {
    const input = { query: 'codexmarmot', limit: 50 };
    const direct = await reader.search(input);
    assert.ok(direct.hits.length > 0, 'the fixture has the planted word');
    assert.deepEqual(await thread.call('search', input), direct);
    assert.deepEqual(JSON.parse(await thread.callJson('search', input)), JSON.parse(JSON.stringify(direct)));
    const id = direct.hits[0]?.conversation as string;
    assert.deepEqual(JSON.parse(await thread.callJson('getConversation', { id, limit: 2 })), JSON.parse(JSON.stringify(await reader.getConversation({ id, limit: 2 }))));
  });

  test('bad input is refused in the thread with BAD_INPUT', async () => {
    await assert.rejects(thread.callJson('search', { query: 'x', filters: { agent: 'bard' } }), isHistoryError('BAD_INPUT', /filters\.agent/));
  });

  test('after stop, calls fail with STOPPED', async () => {
    const other = new ReaderThread(fixture.env, 'reader-thread-stop-test');
    assert.equal((await other.call('search', { query: 'codexmarmot' })).hits.length > 0, true);
    await other.stop();
    assert.equal(other.exited, true);
    await assert.rejects(other.call('search', { query: 'codexmarmot' }), isHistoryError('STOPPED'));
  });
});
