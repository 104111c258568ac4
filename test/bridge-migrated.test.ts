// Continuing a migrated 0.29.17 home: history.db holds the 14 legacy tables
// copied from bridge.db (as the split migration leaves them, marked
// verified), with the fixture's original paths mapped to the generated home.
// Capture continues from the legacy cursors (durable-envelope-keys,
// durable-decisions, durable-archive, durable-job:*, file offsets): what the
// 0.29.17 ingestor had not captured yet is captured, nothing it captured is
// captured again, and partly read files complete byte-exactly.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { bridgeEnv, generateBridgeHome, ingest, prepareHistory, versions, withHistory, type BridgeManifest } from './helpers/bridge.ts';

interface Rec {
  id: number;
  source: string;
  generation: number;
  offset: number;
  n: number;
}

describe('capture continues a migrated 0.29.17 home from the legacy cursors', () => {
  let dir: string;
  let manifest: BridgeManifest;
  let legacy: Rec[];
  let added: Rec[];

  before(async () => {
    ({ dir, manifest } = generateBridgeHome());
    prepareHistory(dir, { legacy: true, originalHome: manifest.originalHome ?? '/home/fixture/.agent-bridge' });
    legacy = withHistory(dir, (db) => db.prepare('SELECT id, source, generation, offset, length(raw) AS n FROM conversation_records').all() as Rec[]);
    await ingest(bridgeEnv(dir));
    const max = Math.max(...legacy.map((r) => r.id));
    added = withHistory(dir, (db) => db.prepare('SELECT id, source, generation, offset, length(raw) AS n FROM conversation_records WHERE id > ?').all(max) as Rec[]);
  });

  it('captures nothing twice: new records only extend what the legacy ingestor captured', () => {
    const ends = new Map<string, number>();
    for (const r of legacy) ends.set(`${r.source}\u0000${r.generation}`, Math.max(ends.get(`${r.source}\u0000${r.generation}`) ?? 0, r.offset + r.n));
    const legacySources = new Set(legacy.map((r) => r.source));
    for (const r of added) {
      if (!legacySources.has(r.source)) continue;
      const end = ends.get(`${r.source}\u0000${r.generation}`);
      assert.ok(end !== undefined && r.offset >= end, `${r.source} gen ${r.generation} @${r.offset} repeats a legacy capture`);
      assert.ok(!/^(messages|decisions|job-snapshot):/.test(r.source), `${r.source} was captured again`);
    }
    assert.ok(added.length > 0);
  });

  it('captures the envelope keys, decision revision, archive row and job snapshot the legacy ingestor had not reached', () => {
    const expected = manifest.expected.bridgeRecords;
    const sources = new Set(added.map((r) => r.source));
    for (const env of expected.envelopes?.uncaptured ?? []) assert.ok(sources.has(`messages:${env.message}:${env.recipient}`), `envelope ${env.id}`);
    assert.equal(added.filter((r) => r.source.startsWith('decisions:')).length, 1, 'decision revision 3');
    for (const name of expected.jobSnapshots?.notYetCaptured ?? []) assert.ok([...sources].some((s) => s.startsWith(`job-snapshot:${name}:`)), name);
    withHistory(dir, (db) => {
      const keys = db.prepare("SELECT count(DISTINCT source) FROM conversation_records WHERE source LIKE 'messages:%'").pluck().get();
      assert.equal(keys, expected.summary.distinctMessageSourceKeys);
      const revisions = db.prepare("SELECT count(DISTINCT source) FROM conversation_records WHERE source LIKE 'decisions:%'").pluck().get();
      assert.equal(revisions, expected.summary.decisionRevisions);
      const cursor = JSON.parse(db.prepare("SELECT cursor FROM history_cursors WHERE source = 'durable-envelope-keys'").pluck().get() as string) as { after: number };
      assert.equal(cursor.after, expected.envelopes?.total);
    });
  });

  it('completes the partly read context spool byte-exactly, its tail event still routed to its job as an approval', () => {
    const rel = manifest.expected.bridgeRecords.contextEvents?.path as string;
    withHistory(dir, (db) => {
      assert.deepEqual(versions(db, join(dir, rel)), [readFileSync(join(dir, rel))]);
      const tail = db
        .prepare(
          `SELECT d.kind, d.job FROM history_fts f JOIN history_documents d ON d.rowid = f.rowid WHERE history_fts MATCH '"contextlargetail"'`,
        )
        .all() as Array<{ kind: string; job: string }>;
      assert.deepEqual(tail, [{ kind: 'approval', job: 'opencode-job-d3097134' }]);
    });
  });

  it('captures run logs the legacy ingestor registered but never read, and no legacy run file twice', () => {
    withHistory(dir, (db) => {
      for (const log of manifest.expected.bridgeRecords.runs.logs) {
        assert.deepEqual(versions(db, join(dir, log.path)), [readFileSync(join(dir, log.path))], log.path);
      }
    });
  });
});
