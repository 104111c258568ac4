// Reindex: derived search data is reset and rebuilt from retained records,
// giving identical search results, also when interrupted by SIGKILL and when
// requested from a running service.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cli, cliJson, envFor, fixtureHome, prng, sha256, spawnCli, type FixtureManifest } from './helpers/home.ts';
import { facetsDrift, withStore } from './helpers/store.ts';
import type { StatusReport } from '../src/cli/commands/status.ts';

/** Keywords from every kind of place: inline sidechain, oversized line tail, persisted output, nested agent, Codex child, multibyte. */
const SAMPLE = ['sidechainvelvet', 'tailmarkeromega', 'fenneltail', 'nestedagentsorrel', 'childlantern', 'codexbigtail', '東京タワー', 'quokkaflux'];

interface Snapshot {
  readonly documents: string;
  /** See facetsDrift: 0 every time. */
  readonly facetsDrift: number;
  readonly searches: Record<string, string[]>;
}

async function snapshot(home: string, manifest: FixtureManifest, env: NodeJS.ProcessEnv): Promise<Snapshot> {
  const [documents, drift] = withStore(home, (db) => {
    const rows = db.prepare("SELECT id, kind, agent, at, body, session, job, cursor FROM history_documents ORDER BY id").all();
    return [sha256(Buffer.from(JSON.stringify(rows))), facetsDrift(db)] as const;
  });
  // The documents digest covers every document; searches check the index answers the same.
  const searches: Record<string, string[]> = {};
  for (const keyword of SAMPLE) {
    assert.ok((manifest.keywords[keyword]?.files.length ?? 0) > 0, `${keyword} is a fixture keyword`);
    const result = await cliJson<{ hits: Array<{ id: string; conversation: string; snippet: string }> }>(['search', keyword, '--limit', '50', '--json'], env);
    searches[keyword] = result.hits.map((h) => `${h.id} ${h.conversation} ${h.snippet}`).sort();
  }
  return { documents, facetsDrift: drift, searches };
}

describe('reindex', () => {
  it('restores identical documents and search results, also after SIGKILLs mid-way and through a running service', async () => {
    const { home, manifest } = fixtureHome();
    const env = envFor(home);
    assert.equal((await cli(['ingest', '--once', '--pace', 'max'], env)).code, 0);
    const records = withStore(home, (db) => db.prepare('SELECT count(*) FROM conversation_records').pluck().get());
    const before = await snapshot(home, manifest, env);
    assert.ok(Object.values(before.searches).every((hits) => hits.length > 0), 'every keyword found before');
    assert.equal(before.facetsDrift, 0, 'the facets mirror the documents');

    const run = await cli(['reindex'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout.toString(), /reindex finished: [1-9]\d* documents/);
    assert.deepEqual(await snapshot(home, manifest, env), before);

    // Interrupted reindexes resume from their saved progress.
    const random = prng(99);
    for (let i = 0; i < 6; i++) {
      const child = spawnCli(['reindex'], env);
      const exited = new Promise((resolve) => child.on('exit', resolve));
      setTimeout(() => child.kill('SIGKILL'), 300 + Math.floor(random() * 1200));
      await exited;
    }
    assert.equal((await cli(['reindex'], env)).code, 0);
    assert.deepEqual(await snapshot(home, manifest, env), before);

    // A running service takes the request through history.reindex.request.
    const serve = spawnCli(['serve'], env);
    try {
      for (let i = 0; i < 200 && !existsSync(join(home, '.agent-bridge', 'history.db.lock')); i++) await new Promise((r) => setTimeout(r, 50));
      // Once the service is idle, its status answers for an idle reindexer (read once, then kept): the request must still show.
      for (let i = 0; i < 100 && (await cliJson<StatusReport>(['status', '--json'], env)).service?.phase !== 'idle'; i++) await new Promise((r) => setTimeout(r, 200));
      await new Promise((r) => setTimeout(r, 2500));
      const requestedAt = Date.now();
      // --no-wait, then the status read here: a status that never shows the reindex done fails this test instead of hanging it.
      const requested = await cli(['reindex', '--no-wait'], env);
      assert.equal(requested.code, 0, requested.stderr);
      assert.match(requested.stderr, /requested from the running service/);
      const lastDone = async (): Promise<number | null> => (await cliJson<StatusReport>(['status', '--json'], env)).service?.reindex.lastDone ?? null;
      const deadline = Date.now() + 60_000;
      while (((await lastDone()) ?? 0) < requestedAt && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      // Then, over several idle turns (2 s each) and status ticks, the status keeps saying it was done.
      for (let i = 0; i <= 6; i++) {
        const done = await lastDone();
        assert.ok(done !== null && done >= requestedAt, `status ${i} s after the reindex was seen done: lastDone ${done}, requested at ${requestedAt}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
      // And the command's own wait for the running service's reindex (its status shows it done, as checked above).
      const waited = await cli(['reindex'], env);
      assert.equal(waited.code, 0, waited.stderr);
      assert.match(waited.stdout.toString(), /^reindex finished$/m);
    } finally {
      const exited = new Promise((r) => serve.on('exit', r));
      serve.kill('SIGTERM');
      await exited;
    }
    assert.deepEqual(await snapshot(home, manifest, env), before);
    assert.equal(withStore(home, (db) => db.prepare('SELECT count(*) FROM conversation_records').pluck().get()), records, 'records are never touched');
  });
});
