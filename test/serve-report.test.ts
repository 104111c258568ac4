// serve's progress reporting on a terminal: one line redrawn in place while a
// backlog runs, finished by the caught-up line; nothing while idle. (The
// line-a-minute form off a terminal is exercised by capture-progress.test.ts
// on a real serve process.)

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CAUGHT_UP, type CaptureProgress } from '../protocols/capture.ts';
import { emptyProgress } from '../src/migration/progress-object.ts';
import type { HistoryStatus } from '../protocols/service.ts';
import { ProgressReporter } from '../src/cli/serve-report.ts';

function status(capture: CaptureProgress, backlog = { sources: 0, bytes: 0 }): HistoryStatus {
  // The fields the reporter reads; the rest of a service status does not matter here.
  return { phase: capture.since === null ? 'idle' : 'ingesting', pausedBy: [], capture, backlog, migration: emptyProgress('verified') } as unknown as HistoryStatus;
}

describe('serve progress on a terminal', () => {
  it('redraws one line while the backlog runs and ends it with the caught-up line', () => {
    const out: string[] = [];
    const reporter = new ProgressReporter((text) => out.push(text), { tty: true, everyMs: 60_000 });
    reporter.update(status(CAUGHT_UP), 0);
    assert.deepEqual(out, [], 'nothing while caught up');
    const running: CaptureProgress = { since: 1000, capturedBytes: 1024 * 1024, foundBytes: 4 * 1024 * 1024, percent: 25, bytesPerSecond: 512 * 1024, etaSeconds: 6, discovering: false, last: null };
    reporter.update(status(running, { sources: 3, bytes: 3 * 1024 * 1024 }), 2000);
    reporter.update(status({ ...running, capturedBytes: 2 * 1024 * 1024, percent: 50, etaSeconds: 4 }, { sources: 2, bytes: 2 * 1024 * 1024 }), 3000);
    assert.equal(out.length, 2);
    assert.equal(out[0], '\ragent-bridge history: backlog 25.0% [######------------------] 1.0 MiB of 4.0 MiB, 512 KiB/s, ETA 6s (3 sources waiting)\x1b[K');
    assert.match(String(out[1]), /^\ragent-bridge history: backlog 50\.0% \[#{12}-{12}\] 2\.0 MiB of 4\.0 MiB, 512 KiB\/s, ETA 4s \(2 sources waiting\)\x1b\[K$/);
    reporter.update(status({ ...CAUGHT_UP, last: { since: 1000, until: 9000, capturedBytes: 4 * 1024 * 1024 } }), 9500);
    assert.equal(out[2], '\ragent-bridge history: caught up: 4.0 MiB captured in 8s\x1b[K\n');
    reporter.close();
    assert.equal(out.length, 3, 'the terminal is already on a fresh line');
  });
});
