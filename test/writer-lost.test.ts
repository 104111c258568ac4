// Capture loses its writer thread (a fault in it: an uncaught error ends it): the supervisor says so in its status and hands the loss to the
// history worker's entry, which stops the supervisor and ends the worker so
// that HistoryService restarts it. Driven here on supervisors in this
// thread, on a generated home: after the stop, a new supervisor (what the
// restarted worker runs) becomes the writer and captures again.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MessagePort } from 'node:worker_threads';
import type { HistoryError } from '../protocols/errors.ts';
import { Supervisor } from '../actors/supervisor.ts';
import { LIMITS } from '../src/config/limits.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { WriterLock } from '../src/store/writer-lock.ts';
import { envFor, fixtureHome } from './helpers/home.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface WriterInside {
  readonly port: MessagePort;
}

/** The supervisor's writer client once capture has started (within 30 s), else undefined. */
async function writerOf(supervisor: Supervisor): Promise<WriterInside | undefined> {
  for (let i = 0; i < 600; i++) {
    const writer = (supervisor as unknown as { running: { ingestion?: { writer: WriterInside } } | null }).running?.ingestion?.writer;
    if (writer !== undefined) return writer;
    await sleep(50);
  }
  return undefined;
}

/** A fault inside the writer thread: a request it cannot even reply to throws there, uncaught, and the thread dies. */
function crash(writer: WriterInside): void {
  writer.port.postMessage(null);
}

describe('a lost writer thread', () => {
  it('is reported in the status and handed on, so that the worker restarts', async () => {
    const { home } = fixtureHome();
    const lost: HistoryError[] = [];
    const supervisor = new Supervisor(LIMITS, (error) => lost.push(error));
    await supervisor.start({ env: envFor(home), mode: 'serve', pace: 'max', reindex: false, verify: false });
    try {
      const writer = await writerOf(supervisor);
      assert.ok(writer !== undefined, 'capture started with a writer thread');
      assert.equal(lost.length, 0);
      crash(writer);
      for (let i = 0; i < 100 && lost.length === 0; i++) await sleep(20);
      assert.equal(lost.length, 1, 'the loss was handed on once');
      assert.equal(lost[0]?.code, 'STOPPED');
      const status = supervisor.status();
      assert.equal(status.lastError?.code, 'STOPPED');
      assert.match(status.lastError?.message ?? '', /writer thread ended unexpectedly/);
    } finally {
      await supervisor.stop();
    }
    assert.equal(lost.length, 1, 'stopping reports no further loss');
    assert.equal(WriterLock.liveOwner(resolvePaths(envFor(home)).writerLock), null, 'the writer lock is free');

    const restarted = new Supervisor(LIMITS, (error) => lost.push(error));
    await restarted.start({ env: envFor(home), mode: 'serve', pace: 'max', reindex: false, verify: false });
    try {
      assert.ok((await writerOf(restarted)) !== undefined, 'the next supervisor is the writer and captures');
      assert.notEqual(restarted.status().phase, 'standby');
    } finally {
      await restarted.stop();
    }
    assert.equal(lost.length, 1);
  });

  it('fails a once run instead of reporting it captured', async () => {
    const { home } = fixtureHome();
    const supervisor = new Supervisor(LIMITS, () => void supervisor.stop());
    // The specification's pace: the capture takes long enough for the writer to be lost in the middle of it.
    await supervisor.start({ env: envFor(home), mode: 'once', pace: 'spec', reindex: false, verify: false });
    const finished = supervisor.finished();
    finished.catch(() => undefined);
    const writer = await writerOf(supervisor);
    assert.ok(writer !== undefined, 'capture started with a writer thread');
    crash(writer);
    await assert.rejects(finished, (error: unknown) => {
      assert.equal((error as HistoryError).code, 'STOPPED');
      assert.match((error as Error).message, /writer thread ended unexpectedly/);
      return true;
    });
  });
});
