// The captured prefix of every source is proven equal to the file (issue 10
// §2): edits in the middle of a file that keep its length, followed by
// appends, with and without the mtime set back, are found by the scrubber
// (`ingest --once --verify`, and the idle scrubber of `serve`), which starts a
// new generation; every final generation equals its file, and every earlier
// one equals what the file held when it was captured. The scrubber's idle
// work is bounded by its pace, however many unchanged sources there are.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HistoryActor } from '../actors/history-actor.ts';
import { LIMITS } from '../src/config/limits.ts';
import { Scrubber } from '../src/ingest/scrubber.ts';
import { openWriter } from '../src/store/open.ts';
import { loadSources } from '../src/store/source-rows.ts';
import { HistoryService } from '../src/service/history-service.ts';
import { cli, cliJson, envFor, prng, tempDir } from './helpers/home.ts';
import { captured, claudeLine, claudePath, duplicateKeys } from './helpers/rollouts.ts';
import { tilingProblems, withStore } from './helpers/store.ts';
import { bridgeEnv, generateBridgeHome, ingest, prepareHistory, withHistory } from './helpers/bridge.ts';

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];

function lines(random: () => number, session: string, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += claudeLine(session, Array.from({ length: 4 + Math.floor(random() * 40) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' '));
  return out;
}

/** Replace one lowercase word at a random place of the file by an uppercase word of the same length. Returns the new word. */
function editMiddle(path: string, random: () => number): string {
  const bytes = readFileSync(path);
  for (;;) {
    let at = Math.floor(random() * bytes.length);
    const isLower = (b: number | undefined): boolean => b !== undefined && b >= 0x61 && b <= 0x7a;
    while (at < bytes.length && !isLower(bytes[at])) at++;
    if (at >= bytes.length) continue;
    while (at > 0 && isLower(bytes[at - 1])) at--;
    let end = at;
    while (isLower(bytes[end])) end++;
    // Only words inside the message text (the keys and metadata are lowercase too).
    if (end - at < 4 || !WORDS.includes(bytes.toString('latin1', at, end))) continue;
    const word = Array.from({ length: end - at }, () => String.fromCharCode(0x41 + Math.floor(random() * 26))).join('');
    bytes.write(word, at, 'latin1');
    writeFileSync(path, bytes);
    return word;
  }
}

/** Set the mtime (and atime) of `path` to those of `reference`, to the nanosecond, as `touch -r` does. */
function copyTimes(reference: string, path: string): void {
  execFileSync('touch', ['-r', reference, path]);
}

/**
 * Whether `bytes` is what capture can have held of the file over its
 * snapshots: one snapshot whole, or the whole of one snapshot followed by
 * bytes appended in the next (captured before an edit was found).
 */
function heldAtSomePoint(bytes: Buffer, snapshots: readonly Buffer[]): boolean {
  return snapshots.some((snap, r) => {
    if (bytes.equals(snap)) return true;
    const next = snapshots[r + 1];
    return next !== undefined && bytes.length === next.length && bytes.subarray(0, snap.length).equals(snap) && bytes.subarray(snap.length).equals(next.subarray(snap.length));
  });
}

async function ingestVerify(env: NodeJS.ProcessEnv): Promise<string> {
  const run = await cli(['ingest', '--once', '--pace', 'max', '--verify'], env);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout.toString('utf8');
}

describe('scrubber', () => {
  it('finds same-length edits in the middle, with appends and with the mtime set back, on files of several sizes', async () => {
    const home = tempDir();
    const env = envFor(home);
    const random = prng(4242);
    // About 3 KiB, 150 KiB and 1.2 MiB.
    const files = [12, 600, 4800].map((count) => {
      const session = randomUUID();
      const path = claudePath(home, session);
      writeFileSync(path, lines(random, session, count));
      return { session, path, snapshots: [readFileSync(path)] };
    });
    await ingestVerify(env);
    const edited: string[] = [];
    let invisible = 0; // edits that leave size and mtime as they were: only the scrubber can find them
    for (let round = 0; round < 4; round++) {
      for (const [i, file] of files.entries()) {
        const reference = `${home}/times-${i}`;
        writeFileSync(reference, '');
        copyTimes(file.path, reference);
        edited.push(editMiddle(file.path, random));
        const append = (round + i) % 2 === 0;
        if (append) appendFileSync(file.path, lines(random, file.session, 1 + Math.floor(random() * 20)));
        // Most edits set the mtime back to what it was, to the nanosecond, as a careful editor would.
        if ((round + i) % 3 !== 1) copyTimes(reference, file.path);
        if (!append && (round + i) % 3 !== 1) invisible++;
      }
      const said = await ingestVerify(env);
      assert.match(said, /verified: \d+ files equal their captured bytes/, 'the run says what it verified');
      for (const file of files) file.snapshots.push(readFileSync(file.path));
      const sources = captured(home);
      for (const file of files) {
        const source = sources.find((s) => s.path === file.path);
        assert.ok(source !== undefined, `${file.path} is a source`);
        assert.deepEqual(source.generations.get(source.generation), readFileSync(file.path), `round ${round}: the final generation of ${file.path} (${readFileSync(file.path).length} B) equals the file`);
        for (const [generation, bytes] of source.generations) {
          assert.ok(heldAtSomePoint(bytes, file.snapshots), `round ${round}: generation ${generation} of ${file.path} is what the file held when it was captured`);
        }
        assert.equal(source.generations.size, round + 2, `round ${round}: each edit started one new generation (the old ones stay)`);
      }
    }
    withStore(home, (db) => {
      assert.equal(duplicateKeys(db), 0);
      assert.deepEqual(tilingProblems(db), []);
    });
    // The words the edits wrote are searchable.
    for (const word of edited.slice(-files.length)) {
      const found = await cliJson<{ hits: unknown[] }>(['search', word, '--json'], env);
      assert.ok(found.hits.length > 0, `the edited word ${word} is found`);
    }
    const status = await cliJson<{ verified: { sweeps: number; mismatches: number; lastSweep: { sources: number } } }>(['status', '--json'], env);
    assert.equal(status.verified.sweeps, 5, 'status says how many sweeps verified the store');
    // The others may already have been found when the changed file was opened (spot checks, head, anchor).
    assert.ok(invisible > 0 && status.verified.mismatches >= invisible && status.verified.mismatches <= edited.length, `status counts the differences the scrubber found (${status.verified.mismatches}; ${invisible} invisible to stat)`);
  });

  it('runs while serve is idle, finds an edit whose mtime was set back, and says so in status', async () => {
    const home = tempDir();
    const env = envFor(home, { AGENT_BRIDGE_HISTORY_SCRUB_BYTES_PER_SECOND: String(64 * 1024 * 1024), AGENT_BRIDGE_HISTORY_SCRUB_INTERVAL_SECONDS: '0' });
    const random = prng(77);
    const session = randomUUID();
    const path = claudePath(home, session);
    writeFileSync(path, lines(random, session, 400));
    const run = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(run.code, 0, run.stderr);
    const reference = `${home}/times`;
    writeFileSync(reference, '');
    copyTimes(path, reference);
    const stat = statSync(path);
    editMiddle(path, random);
    copyTimes(reference, path);
    assert.equal(statSync(path).mtimeMs, stat.mtimeMs, 'the edit is invisible to stat');
    const service = new HistoryService({ env, mode: 'serve', pace: 'spec' });
    await service.start();
    try {
      let status = await service.status();
      for (let i = 0; i < 200 && (status.scrub === null || status.scrub.mismatches === 0 || status.scrub.lastSweep === null || status.backlog.sources > 0); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = await service.status();
      }
      assert.ok(status.scrub !== null);
      assert.equal(status.scrub.mismatches, 1, 'the idle scrubber found the edit');
      assert.equal(status.scrub.lastMismatch?.path, path);
      assert.ok(status.scrub.verifiedBytes > 0 || (status.scrub.lastSweep?.mismatches ?? 0) === 1);
      for (let i = 0; i < 100 && captured(home)[0]?.generation !== 1; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await service.stop();
    }
    const [source] = captured(home);
    assert.equal(source?.generation, 1, 'a new generation started');
    assert.deepEqual(source?.generations.get(1), readFileSync(path), 'and it equals the file');
    const human = await cli(['status'], env);
    assert.match(human.stdout.toString('utf8'), /last difference: .* generation 0 at byte \d+/);
  });

  it('finds nothing to correct in a bridge home, whose approvals are retained with their capability blanked', async () => {
    const { dir, manifest } = generateBridgeHome();
    prepareHistory(dir);
    await ingest(bridgeEnv(dir));
    const run = await cli(['ingest', '--once', '--pace', 'max', '--verify'], bridgeEnv(dir));
    assert.equal(run.code, 0, run.stderr);
    const status = await cliJson<{ verified: { mismatches: number; lastSweep: { sources: number; mismatches: number } } }>(['status', '--json'], bridgeEnv(dir));
    assert.equal(status.verified.mismatches, 0, 'no retained copy taken for an edited file');
    assert.ok(status.verified.lastSweep.sources >= manifest.files.length / 2, `the sweep verified the bridge files (${status.verified.lastSweep.sources})`);
    const approvals = withHistory(dir, (db) => db.prepare("SELECT max(generation) FROM conversation_sources WHERE format = 'approval'").pluck().get());
    assert.equal(approvals, 0, 'approval files stay in generation 0');
  });

  it('does idle work bounded by its pace, and none between sweeps, however many unchanged sources there are', async () => {
    const home = tempDir();
    const env = envFor(home);
    const random = prng(5);
    const count = 600;
    for (let i = 0; i < count; i++) {
      const session = randomUUID();
      writeFileSync(claudePath(home, session, `-p${i % 20}`), lines(random, session, 1 + Math.floor(random() * 6)));
    }
    const run = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(run.code, 0, run.stderr);
    const db = openWriter(join(home, '.agent-bridge', 'history.db'));
    try {
      const history = new HistoryActor(db);
      const stored = loadSources(db);
      const total = stored.reduce((n, s) => n + s.cursor.offset, 0);
      let storeBytes = 0;
      let visits = 0;
      const limits = { ...LIMITS, scrubSourcesPerStep: 64 };
      const rate = 256 * 1024;
      const scrubber = new Scrubber(
        {
          history: (message) => {
            const reply = history.handle(message);
            if (message.type === 'spansFrom') for (const span of reply as Array<{ raw: Uint8Array }>) storeBytes += span.raw.length;
            return reply;
          },
          ids: () => stored.map((s) => s.id).sort(),
          target: (id) => {
            visits++;
            const s = stored.find((x) => x.id === id);
            return s === undefined ? null : { id, path: s.path, format: 'claude', cursor: s.cursor };
          },
          restart: () => assert.fail('nothing changed'),
        },
        limits,
        { bytesPerSecond: rate, sweepIntervalMs: 3_600_000 },
      );
      let now = 1_000_000;
      let steps = 0;
      for (; scrubber.status().sweeps === 0; steps++) {
        const [bytes, seen] = [storeBytes, visits];
        now += 2000;
        await scrubber.idle(now);
        // Per 2 s step: at most the budget (store + file bytes, and the cost of each visit), plus one record over it.
        const budget = (rate * 2000) / 1000;
        assert.ok(2 * (storeBytes - bytes) <= budget + 2 * 64 * 1024, `step ${steps}: ${2 * (storeBytes - bytes)} B within ${budget} B`);
        assert.ok(visits - seen <= 2 * limits.scrubSourcesPerStep + 2, `step ${steps}: ${visits - seen} visits within the per-step bound`);
        assert.ok(steps < 10_000);
      }
      assert.equal(scrubber.status().lastSweep?.sources, count, 'every source verified once');
      assert.equal(scrubber.status().lastSweep?.bytes, total, 'every captured byte compared once');
      assert.ok(steps >= Math.floor(count / limits.scrubSourcesPerStep), 'a sweep of many small files is spread over many steps');
      // Between sweeps nothing is read.
      const [bytes, seen] = [storeBytes, visits];
      for (let i = 0; i < 100; i++) await scrubber.idle((now += 2000));
      assert.deepEqual([storeBytes - bytes, visits - seen], [0, 0], 'no idle work until the next sweep is due');
      await scrubber.idle((now += 3_600_000));
      assert.ok(visits > seen, 'the next sweep starts when due');
    } finally {
      db.close();
    }
  });
});
