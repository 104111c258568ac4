// Bridge records of a generated 0.29.17 home (user_version 8), captured from
// an empty history.db (the migration marked verified with no legacy rows
// copied): every kind retained byte-exactly and searchable with the right
// kind, agent, job and project; broadcasts one message; the quiet observer
// copy; rowid reuse after archival; approvals without their capability; the
// broker's files untouched.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Kind } from '../protocols/records.ts';
import { openReader } from '../src/store/open.ts';
import { countMatches, search } from '../src/store/search.ts';
import type { SearchHit } from '../protocols/search.ts';
import { cli, sha256 } from './helpers/home.ts';
import { bridgeEnv, fileSha, generateBridgeHome, historyPath, ingest, prepareHistory, versions, withBroker, withHistory, type BridgeManifest } from './helpers/bridge.ts';

const PROJECT_A = '/home/fixture/work/orchard_app.v2';
const PROJECT_B = '/home/fixture/work/quarry-tools';

type Row = Record<string, unknown> & { id: string; recipient: string };

describe('bridge records of a 0.29.17 home, captured from an empty history.db', () => {
  let dir: string;
  let manifest: BridgeManifest;
  let shaBefore: Record<string, string>;

  before(async () => {
    ({ dir, manifest } = generateBridgeHome());
    shaBefore = Object.fromEntries(['bridge.db', 'archive.db', ...manifest.files.map((f) => f.path)].map((p) => [p, fileSha(join(dir, p))]));
    prepareHistory(dir);
    await ingest(bridgeEnv(dir));
  });

  it('retains every message envelope byte-exactly, live and archived', () => {
    const live = withBroker(join(dir, 'bridge.db'), (db) => db.prepare('SELECT * FROM messages').all() as Row[]);
    const envelopes = withBroker(join(dir, 'bridge.db'), (db) => db.prepare('SELECT message, recipient FROM conversation_envelopes').all() as Array<{ message: string; recipient: string }>);
    const archived = withBroker(join(dir, 'archive.db'), (db) => db.prepare('SELECT rowid AS n, * FROM messages').all() as Array<Row & { n: number }>);
    const keyed = new Set(envelopes.map((e) => `${e.message}:${e.recipient}`));
    withHistory(dir, (db) => {
      for (const row of live) {
        assert.deepEqual(versions(db, `messages:${row.id}:${row.recipient}`), [Buffer.from(JSON.stringify(row))], `live ${row.id}`);
      }
      for (const { n, ...row } of archived) {
        // One version, as its archive row (`SELECT rowid n, *`), or, for a row with an envelope key, possibly as
        // the key's row from archive.db: whichever lane reached it first; the other finds the same version.
        const forms = [JSON.stringify({ n, ...row }), ...(keyed.has(`${row.id}:${row.recipient}`) ? [JSON.stringify(row)] : [])];
        const kept = versions(db, `messages:${row.id}:${row.recipient}`);
        assert.equal(kept.length, 1, `archived ${row.id}: one version`);
        assert.ok(forms.includes(String(kept[0])), `archived ${row.id}: ${String(kept[0]).slice(0, 80)}`);
      }
      const keys = db.prepare("SELECT count(DISTINCT source) FROM conversation_records WHERE source LIKE 'messages:%'").pluck().get();
      assert.equal(keys, manifest.expected.bridgeRecords.summary.distinctMessageSourceKeys);
    });
  });

  it('keeps a claimed message under both its queue key and its final recipient', () => {
    withHistory(dir, (db) => {
      const claimed = db.prepare("SELECT DISTINCT source FROM conversation_records WHERE source LIKE 'messages:%:agent:claude'").pluck().all() as string[];
      assert.equal(claimed.length, 1);
      const id = (claimed[0] as string).split(':')[1] as string;
      const [queue] = versions(db, `messages:${id}:agent:claude`);
      const [final] = versions(db, `messages:${id}:claude-orchard`);
      assert.equal(JSON.parse(String(queue)).recipient, 'agent:claude');
      assert.equal(JSON.parse(String(final)).recipient, 'claude-orchard');
    });
  });

  it('retains every decision revision, job snapshot, run file, approval and context event', () => {
    const decisions = withBroker(join(dir, 'bridge.db'), (db) => db.prepare('SELECT rowid AS n, * FROM decisions').all() as Array<{ id: string; revision: number }>);
    const jobs = [
      ...(JSON.parse(readFileSync(join(dir, manifest.expected.bridgeRecords.jobs.archiveFile), 'utf8')) as { jobs: Array<{ name: string }> }).jobs,
      ...(JSON.parse(readFileSync(join(dir, 'jobs.json'), 'utf8')) as { jobs: Array<{ name: string }> }).jobs,
    ];
    const runs = manifest.expected.bridgeRecords.runs;
    withHistory(dir, (db) => {
      for (const d of decisions) assert.deepEqual(versions(db, `decisions:${d.id}:${d.revision}`), [Buffer.from(JSON.stringify(d))]);
      for (const job of jobs) {
        const raw = Buffer.from(JSON.stringify(job));
        const sha = sha256(raw);
        assert.deepEqual(versions(db, `job-snapshot:${job.name}:${sha}`), [raw], job.name);
        assert.equal(db.prepare('SELECT cursor FROM history_cursors WHERE source = ?').pluck().get(`durable-job:${job.name}:${sha}`), '1');
      }
      for (const rel of [...runs.logs.map((l) => l.path), ...runs.metadata, manifest.expected.bridgeRecords.contextEvents?.path as string]) {
        assert.deepEqual(versions(db, join(dir, rel)), [readFileSync(join(dir, rel))], rel);
      }
      for (const rel of runs.notRecognisedBy029) assert.deepEqual(versions(db, join(dir, rel)), [], `${rel} is not a run file`);
    });
  });

  it('retains approvals without pid, port or token, and leaves every broker file byte-identical', () => {
    withHistory(dir, (db) => {
      for (const approval of manifest.expected.bridgeRecords.approvals) {
        const file = readFileSync(join(dir, approval.path));
        const request = JSON.parse(file.toString('utf8')) as { pid: number; port: number; token: string };
        const [copy] = versions(db, join(dir, approval.path));
        assert.ok(copy !== undefined, approval.path);
        assert.equal(copy.length, file.length, 'same length');
        const text = copy.toString('utf8');
        for (const needle of ['"pid"', '"port"', '"token"', request.token, `:${request.pid}`, `:${request.port}`]) assert.ok(!text.includes(needle), `${approval.path} holds ${needle}`);
        const kept = JSON.parse(text) as Record<string, unknown>;
        assert.deepEqual(kept, Object.fromEntries(Object.entries(JSON.parse(file.toString('utf8')) as Record<string, unknown>).filter(([k]) => !['pid', 'port', 'token'].includes(k))));
      }
      const leaked = db.prepare("SELECT count(*) FROM history_documents WHERE body LIKE '%\"token\"%'").pluck().get();
      assert.equal(leaked, 0);
    });
    for (const [path, sha] of Object.entries(shaBefore)) assert.equal(fileSha(join(dir, path)), sha, `${path} changed`);
  });

  it('finds each record with its kind, agent, job and project', () => {
    const cases: Array<[string, Kind, string, string | null, string]> = [
      ['directheron', 'message', 'claude', null, PROJECT_A],
      ['claimedkestrel', 'message', 'opencode', null, PROJECT_B],
      ['rowidarchivedstoat', 'message', 'codex', null, PROJECT_A],
      ['rowidreusequail', 'message', 'claude', null, PROJECT_A],
      ['legacyarchivemink', 'message', 'opencode', null, PROJECT_B],
      ['bigbodytail', 'message', 'opencode', null, PROJECT_B],
      ['siblingwren', 'message', 'claude', 'claude-job-d48e4795', PROJECT_A],
      ['reportotter', 'report', 'claude', 'claude-job-d48e4795', PROJECT_A],
      ['failedgrouse', 'report', 'codex', 'codex-job-907b36e7', PROJECT_A],
      ['decisionmoose', 'decision', 'other', null, PROJECT_A],
      ['freezeibis', 'decision', 'codex', null, PROJECT_A],
      ['runlogpelican', 'run', 'claude', 'claude-job-d48e4795', PROJECT_A],
      ['runtitlegecko', 'run', 'claude', 'claude-job-d48e4795', PROJECT_A],
      ['rotatedrunnewt', 'run', 'opencode', 'opencode-job-33607be8', PROJECT_B],
      ['jobprompttoucan', 'report', 'claude', 'claude-job-d48e4795', PROJECT_A],
      ['archivedjobwalrus', 'report', 'opencode', 'opencode-job-33607be8', PROJECT_B],
      ['approvalcapybara', 'approval', 'opencode', 'opencode-job-d3097134', PROJECT_B],
      ['largeapprovaltail', 'approval', 'opencode', 'opencode-job-33607be8', PROJECT_B],
      ['progressnarwhal', 'progress', 'opencode', 'opencode-job-d3097134', PROJECT_B],
      ['approvaleventlynx', 'approval', 'opencode', 'opencode-job-d3097134', PROJECT_B],
      ['reporteventorca', 'report', 'claude', 'claude-job-d48e4795', PROJECT_A],
      ['contextlargetail', 'approval', 'opencode', 'opencode-job-d3097134', PROJECT_B],
    ];
    const db = openReader(historyPath(dir));
    assert.ok(db !== null);
    try {
      for (const [word, kind, agent, job, project] of cases) {
        const hits = search(db, { query: word, limit: 10, filters: { kind, agent: agent as never, project } }).hits;
        assert.ok(hits.length > 0, `${word} as ${kind}/${agent} in ${project}`);
        assert.ok(hits.every((h) => h.job === job), `${word}: job ${hits.map((h) => h.job).join(',')}`);
        if (kind === 'run') {
          // A run hit names its run: the log's file name without .log and a rotation suffix.
          const logs = manifest.expected.bridgeRecords.runs.logs.map((l) => basename(l.path));
          for (const h of hits) assert.ok(h.run !== null && logs.some((l) => l.startsWith(`${h.run}.log`)), `${word}: run ${h.run} names one of ${logs.join(', ')}`);
        }
      }
      assert.equal(search(db, { query: 'dotonerotationyak', limit: 10, filters: {} }).hits.length, 0, 'a .log.1 is not captured');
    } finally {
      db.close();
    }
  });

  it('shows a broadcast and a claimed message as one message each; keeps the quiet observer copy', () => {
    const db = openReader(historyPath(dir));
    assert.ok(db !== null);
    try {
      for (const word of ['broadcastlark', 'claimedkestrel']) {
        const request = { query: word, limit: 10, filters: {} };
        assert.equal(countMatches(db, request).documents, 2, `${word}: one document per envelope`);
        const hits: SearchHit[] = search(db, request).hits;
        assert.equal(hits.length, 1, `${word}: one message id, so search shows one hit`);
      }
      const sibling = search(db, { query: 'siblingwren', limit: 10, filters: {} }).hits;
      assert.equal(new Set(sibling.map((h) => h.message)).size, 2, 'the sibling message and its quiet copy are two messages');
      assert.ok(sibling.some((h) => h.conversation?.endsWith(':note')), 'the observer copy is in the :note conversation');
    } finally {
      db.close();
    }
  });

  it('keeps an archived message and the new message on its reused rowid apart', () => {
    const { archived, reused } = manifest.expected.bridgeRecords.rowidReuse;
    assert.equal(archived.rowid, reused.rowid);
    withHistory(dir, (db) => {
      const a = versions(db, `messages:${archived.id}:${archived.recipient}`);
      const b = versions(db, `messages:${reused.id}:${reused.recipient}`);
      assert.equal(a.length, 1);
      assert.equal(b.length, 1);
      assert.match(String(a[0]), /rowidarchivedstoat/);
      assert.match(String(b[0]), /rowidreusequail/);
    });
  });

  it('derives the same documents again from the retained records on reindex', async () => {
    const documents = (): unknown[] =>
      withHistory(dir, (db) =>
        db
          .prepare(
            `SELECT d.id, d.kind, d.agent, d.job, d.session, d.message, d.body, c.id AS conversation FROM history_documents d
             LEFT JOIN history_document_refs r ON r.doc = d.rowid LEFT JOIN conversations c ON c.rowid = r.conversation ORDER BY conversation, d.body`,
          )
          .all()
          .map((row) => ({ ...(row as Record<string, unknown>), id: undefined })),
      );
    const before = documents();
    const run = await cli(['reindex', '--json'], bridgeEnv(dir));
    assert.equal(run.code, 0, run.stderr);
    assert.ok(withHistory(dir, (db) => db.prepare("SELECT cursor FROM history_cursors WHERE source = 'reindex-done'").pluck().get()) !== undefined, 'the reindex ran to its end');
    assert.deepEqual(documents(), before);
  });
});

