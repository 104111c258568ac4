// The capture backlog's progress (src/ingest/capture-meter.ts) on a simulated
// clock: percentage of the current backlog, rate over the recent window, ETA,
// and a new backlog starting from zero after being caught up.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CaptureMeter, RATE_WINDOW_MS } from '../src/ingest/capture-meter.ts';
import { prng } from './helpers/home.ts';

const MiB = 1024 * 1024;

describe('capture meter', () => {
  it('reports bytes captured of bytes found, the rate and the ETA of a steady backlog', () => {
    const meter = new CaptureMeter();
    const total = 10 * MiB;
    let waiting = total;
    let now = 1_000_000;
    assert.equal(meter.progress({ sources: 3, bytes: waiting, discovering: false }, now).percent, 0);
    // 64 KiB every 100 ms: 640 KiB/s.
    for (let i = 0; i < 80; i++) {
      now += 100;
      waiting -= 64 * 1024;
      meter.captured(64 * 1024, now);
    }
    const p = meter.progress({ sources: 3, bytes: waiting, discovering: false }, now);
    assert.equal(p.capturedBytes, 80 * 64 * 1024);
    assert.equal(p.foundBytes, total);
    assert.equal(p.percent, 50);
    assert.equal(p.since, 1_000_000);
    // The last sample was taken at most a second ago; the rate is that of the batches since the first sample.
    assert.ok(Math.abs(p.bytesPerSecond - 640 * 1024) / (640 * 1024) < 0.05, `rate ${p.bytesPerSecond}`);
    assert.equal(p.etaSeconds, Math.ceil(waiting / p.bytesPerSecond));
  });

  it('has no ETA before two seconds of measurement, and none while nothing moves for a whole window', () => {
    const meter = new CaptureMeter();
    let now = 5000;
    meter.captured(1000, now);
    now += 500;
    meter.captured(1000, now);
    const early = meter.progress({ sources: 1, bytes: 50_000, discovering: false }, now);
    assert.equal(early.etaSeconds, null, 'half a second of data is no rate');
    assert.equal(early.bytesPerSecond, 0);
    now += RATE_WINDOW_MS + 1000; // paused (pressure) for longer than the window
    const stalled = meter.progress({ sources: 1, bytes: 50_000, discovering: false }, now);
    assert.equal(stalled.bytesPerSecond, 0);
    assert.equal(stalled.etaSeconds, null);
    assert.equal(stalled.capturedBytes, 2000, 'what was captured stays counted');
  });

  it('the rate follows the recent pace (the window), not the whole backlog', () => {
    const meter = new CaptureMeter();
    let now = 0;
    for (let i = 0; i < 60; i++) meter.captured(1000 * 1024, (now += 1000)); // 1000 KiB/s for a minute
    for (let i = 0; i < 60; i++) meter.captured(100 * 1024, (now += 1000)); // then 100 KiB/s
    const p = meter.progress({ sources: 1, bytes: 10 * MiB, discovering: false }, now);
    assert.ok(Math.abs(p.bytesPerSecond - 100 * 1024) < 5 * 1024, `rate ${p.bytesPerSecond}`);
  });

  it('ends a backlog once nothing waits and discovery is done; the next one starts from zero', () => {
    const meter = new CaptureMeter();
    meter.captured(4096, 1000);
    assert.equal(meter.progress({ sources: 0, bytes: 0, discovering: true }, 2000).since, 1000, 'discovery may still find more');
    const done = meter.progress({ sources: 0, bytes: 0, discovering: false }, 3000);
    assert.deepEqual([done.since, done.percent, done.etaSeconds], [null, null, 0]);
    assert.deepEqual(done.last, { since: 1000, until: 3000, capturedBytes: 4096 }, 'the finished backlog stays reported');
    meter.captured(100, 10_000);
    const next = meter.progress({ sources: 1, bytes: 300, discovering: false }, 10_000);
    assert.deepEqual([next.since, next.capturedBytes, next.foundBytes, next.percent], [10_000, 100, 400, 25]);
  });

  it('a source waiting without bytes (an OpenCode database) keeps the backlog open with no ETA', () => {
    const meter = new CaptureMeter();
    const p = meter.progress({ sources: 1, bytes: 0, discovering: false }, 1000);
    assert.equal(p.since, 1000);
    assert.equal(p.percent, null);
    assert.equal(p.etaSeconds, null);
  });

  it('property: captured + waiting = found and 0 ≤ percent ≤ 100 for any batch sequence', () => {
    const random = prng(13);
    for (let run = 0; run < 50; run++) {
      const meter = new CaptureMeter();
      let now = 0;
      let waiting = Math.floor(random() * 50 * MiB);
      let captured = 0;
      for (let step = 0; step < 200 && waiting > 0; step++) {
        now += Math.floor(random() * 3000);
        const bytes = Math.min(waiting, Math.floor(random() * 128 * 1024));
        meter.captured(bytes, now);
        captured += bytes;
        waiting -= bytes;
        if (random() < 0.1) waiting += Math.floor(random() * MiB); // discovery found more
        const p = meter.progress({ sources: waiting > 0 ? 1 : 0, bytes: waiting, discovering: false }, now);
        if (waiting === 0) break;
        assert.equal(p.capturedBytes, captured);
        assert.equal(p.foundBytes, captured + waiting);
        assert.ok(p.percent !== null && p.percent >= 0 && p.percent <= 100);
        if (p.etaSeconds !== null) assert.ok(p.etaSeconds >= 0 && p.bytesPerSecond > 0);
      }
    }
  });
});
