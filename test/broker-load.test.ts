// The broker's own messages keep flowing while ingestion runs: a stand-in
// broker loop on this (main) thread sends and acknowledges messages in
// bridge.db (a generated v8 home, its triggers in place) while HistoryService
// backfills a make-corpus corpus in its worker. Timing is only bounded
// generously here (zero failures, p95 under 1 s, the bar of the earlier
// implementation); bench/broker-load.ts measures the figures.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, runBrokerLoop } from '../bench/broker-loop.ts';
import { HistoryService } from '../src/service/history-service.ts';
import { generateBridgeHome, prepareHistory, withBroker, withHistory } from './helpers/bridge.ts';
import { envFor, fixturesDir, sqliteModule, tempDir } from './helpers/home.ts';

describe('broker messages during a large backfill', () => {
  it('sends and acknowledges every message, p95 under 1 s, while the backfill runs', async () => {
    const corpus = tempDir('abh-load-');
    execFileSync(process.execPath, [join(fixturesDir, 'make-corpus.mjs'), corpus, '--bytes', '64MiB', '--workers', '2', '--sqlite-module', sqliteModule], { stdio: 'ignore' });
    const { dir } = generateBridgeHome();
    prepareHistory(dir);
    const bridgeDb = join(dir, 'bridge.db');
    const legacyBefore = withBroker(bridgeDb, (db) => db.prepare('SELECT (SELECT count(*) FROM conversation_records) AS records, (SELECT count(*) FROM history_documents) AS documents').get());

    const service = new HistoryService({ env: envFor(corpus, { AGENT_BRIDGE_HOME: dir }), mode: 'serve', pace: 'spec' });
    await service.start();
    try {
      while ((await service.status()).counts.records === 0) await sleep(100);
      const result = await runBrokerLoop({ bridgeDb, messages: 300, intervalMs: 20 });
      const status = await service.status();
      const p = (q: number): string => percentile(result.latencies, q).toFixed(1);
      console.log(
        `send→ack over ${result.latencies.length} messages during backfill: p50 ${p(50)} ms, p95 ${p(95)} ms, p99 ${p(99)} ms, max ${p(100)} ms; ` +
          `event loop p99 ${result.loopDelay.p99.toFixed(1)} ms; ${status.counts.records} records captured, backlog ${status.backlog.bytes} bytes`,
      );
      assert.equal(result.failures, 0, result.errors.join('; '));
      assert.equal(result.latencies.length, 300);
      assert.ok(percentile(result.latencies, 95) < 1000, `p95 ${p(95)} ms`);
      assert.ok(status.backlog.bytes > 0 || status.backlog.sources > 0, 'the backfill was still running when the loop ended');
      // Bridge messages sent during the backfill are captured alongside it.
      const deadline = Date.now() + 20_000;
      let captured = 0;
      while (captured === 0 && Date.now() < deadline) {
        await sleep(250);
        captured = withHistory(dir, (db) => db.prepare("SELECT count(*) FROM conversation_records WHERE source LIKE 'messages:%' AND CAST(raw AS TEXT) LIKE '%brokerloadkeyword%'").pluck().get() as number);
      }
      const seen = withHistory(dir, (db) => db.prepare("SELECT count(*) AS n, (SELECT cursor FROM history_cursors WHERE source = 'durable-envelope-keys') AS cursor FROM conversation_records WHERE source LIKE 'messages:%'").get());
      assert.ok(captured > 0, `load messages captured (${JSON.stringify(seen)}, problems ${JSON.stringify((await service.status()).problems)})`);
    } finally {
      await service.stop();
    }
    const legacyAfter = withBroker(bridgeDb, (db) => db.prepare('SELECT (SELECT count(*) FROM conversation_records) AS records, (SELECT count(*) FROM history_documents) AS documents').get());
    assert.deepEqual(legacyAfter, legacyBefore, 'nothing written to bridge.db\'s legacy history tables');
  });
});
