// The capture loop sends a batch before the one ahead of it has settled
// (LIMITS.batchesInFlight), and record providers read history.db on the
// history worker's own connection (src/service/provider-reads.ts). Both rest
// on one rule of the scheduler: a provider gives its next unit only once
// none of its units is in flight, so what it reads has committed. Checked
// here on the real scheduler, writer thread, parser pool, discovery and
// OpenCode provider, the provider watched through a wrapper that counts its
// units: none is asked for while another is outstanding, and the capture
// holds every OpenCode row a plain `ingest --once` of the same home holds.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { DiscoveryActor } from '../actors/discovery-actor.ts';
import { HistoryActor } from '../actors/history-actor.ts';
import { ParserPool } from '../actors/parser-pool.ts';
import type { RowBatch } from '../protocols/rows.ts';
import { LIMITS } from '../src/config/limits.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { scrubConfig } from '../src/config/scrub-config.ts';
import { DEFAULT_SETTINGS } from '../src/config/settings.ts';
import type { RecordProvider } from '../src/ingest/provider.ts';
import { Scheduler } from '../src/ingest/scheduler.ts';
import { providerAsk } from '../src/service/provider-reads.ts';
import { WriterClient } from '../src/service/writer-client.ts';
import { OpenCodeProvider } from '../src/sources/opencode/provider.ts';
import { openWriter } from '../src/store/open.ts';
import { fixturesDir, sha256, sqliteModule, tempDir } from './helpers/home.ts';
import { corpusHome, homeEnv } from './helpers/search-homes.ts';
import { withStore } from './helpers/store.ts';

/** A provider that counts its units, and the units asked for while one of its units was outstanding. */
class WatchedProvider implements RecordProvider {
  units = 0;
  outstanding = 0;
  askedWhileOutstanding = 0;
  constructor(private readonly inner: RecordProvider) {}
  get name(): string {
    return this.inner.name;
  }
  get backlog(): boolean {
    return this.inner.backlog;
  }
  async next(): Promise<RowBatch | null> {
    if (this.outstanding > 0) this.askedWhileOutstanding++;
    const batch = await this.inner.next();
    if (batch !== null) {
      this.units++;
      this.outstanding++;
    }
    return batch;
  }
  committed(batch: RowBatch): void {
    this.outstanding--;
    this.inner.committed(batch);
  }
  abandoned(batch: RowBatch): void {
    this.outstanding--;
    this.inner.abandoned(batch);
  }
  problems() {
    return this.inner.problems();
  }
  owns(source: string): boolean {
    return this.inner.owns(source);
  }
  documentsFor(row: Parameters<RecordProvider['documentsFor']>[0]) {
    return this.inner.documentsFor(row);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** OpenCode's records in a home's store: `source|generation|offset` → the sha256 of its bytes. */
function opencodeRecords(home: string): Map<string, string> {
  const rows = withStore(home, (db) => db.prepare("SELECT source, generation, offset, raw FROM conversation_records WHERE source LIKE 'opencode:%'").all()) as Array<{
    source: string;
    generation: number;
    offset: number;
    raw: Buffer;
  }>;
  return new Map(rows.map((r) => [`${r.source}|${r.generation}|${r.offset}`, sha256(r.raw)]));
}

describe('batches in flight', () => {
  it('a record provider gives no unit while another of its units is in flight, and captures every row', async () => {
    // A small corpus with an OpenCode database of many sessions (several units), generated twice from one seed:
    // one copy captured by the product from the command line, the other by the scheduler below.
    const corpus = { bytes: '8MiB', seed: 11 };
    const plain = await corpusHome(corpus);
    const home = tempDir();
    execFileSync(process.execPath, [join(fixturesDir, 'make-corpus.mjs'), home, '--bytes', corpus.bytes, '--seed', String(corpus.seed), '--workers', '1', '--sqlite-module', sqliteModule], {
      stdio: 'ignore',
    });
    const env = homeEnv(home, join(home, '.agent-bridge'), { AGENT_BRIDGE_HISTORY_MIRRORS: 'off' });
    const paths = resolvePaths(env);
    mkdirSync(dirname(paths.historyDb), { recursive: true });
    const own = openWriter(paths.historyDb);
    const local = new HistoryActor(own);
    const writer = await WriterClient.open(paths.historyDb);
    const parser = new ParserPool(1);
    const discovery = new DiscoveryActor(paths, LIMITS, 'once', () => undefined);
    const opencode = new WatchedProvider(
      new OpenCodeProvider({ paths, limits: LIMITS, history: providerAsk((message) => local.handle(message), writer.ask), resolveProject: async (cwd) => cwd, mode: 'once' }),
    );
    try {
      const scheduler = new Scheduler(
        {
          history: writer.ask,
          send: writer.send,
          providers: [opencode],
          parse: parser.parse,
          discovery,
          settings: () => DEFAULT_SETTINGS,
          resolveProject: async (cwd) => cwd,
          reindexRequest: () => null,
        },
        { limits: LIMITS, pace: 'max', mode: 'once', scrub: scrubConfig(env) },
      );
      await scheduler.run();
      assert.ok(opencode.units > 1, `OpenCode gave ${opencode.units} units: more than one is needed to see the rule`);
      assert.equal(opencode.outstanding, 0, 'every unit settled');
      assert.equal(opencode.askedWhileOutstanding, 0, `asked for a unit ${opencode.askedWhileOutstanding} times while one was in flight`);
      assert.ok(scheduler.totals.batches > opencode.units, 'file chunks went in batches of their own too');
    } finally {
      await writer.close();
      await parser.stop();
      await discovery.stop();
      own.close();
    }
    // The same corpus captured by the product itself: the same OpenCode records, byte for byte.
    const expected = opencodeRecords(plain.home);
    assert.ok(expected.size > 0);
    assert.deepEqual(opencodeRecords(home), expected);
  });
});
