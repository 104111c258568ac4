// The legacy read path: on a 0.29.17 bridge home (make-bridge-home.mjs; no
// history.db, no migration yet) search_history and get_conversation answer
// from the legacy tables in bridge.db, read-only. Also the job, session and
// project filters over legacy rows (tags, aliases, bindings, native
// ancestry) and a 0.29.10 home without conversation tables.

import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { ConversationRecord } from '../protocols/search.ts';
import { resolvePaths } from '../src/config/paths.ts';
import { HistoryReader } from '../src/read/history-reader.ts';
import { fixturesDir, run, sqliteModule } from './helpers/home.ts';
import { homeEnv, legacyBridgeHome, searchTempDir } from './helpers/search-homes.ts';

interface LegacyManifest {
  readonly keywords: Record<string, { readonly fts: { readonly expected: number } }>;
  readonly expected: { readonly bridgeRecords: { readonly records: { readonly claudeGeneration0: { readonly source: string; readonly bytes: number; readonly sha256: string } } } };
}

async function pages(reader: HistoryReader, id: string, limit?: number): Promise<ConversationRecord[]> {
  const records: ConversationRecord[] = [];
  let after = 0;
  for (;;) {
    const page = await reader.getConversation({ id, after, ...(limit === undefined ? {} : { limit }) });
    records.push(...page.records);
    if (page.next === null) return records;
    after = page.next;
  }
}

describe('legacy bridge.db read path', () => {
  let bridgeHome: string;
  let manifest: LegacyManifest;
  let reader: HistoryReader;
  let bridgeMtime: number;

  before(async () => {
    const legacy = await legacyBridgeHome();
    bridgeHome = legacy.bridgeHome;
    manifest = legacy.manifest as unknown as LegacyManifest;
    reader = new HistoryReader(resolvePaths(legacy.env));
    bridgeMtime = statSync(join(bridgeHome, 'bridge.db')).mtimeMs;
  });
  after(() => reader.close());

  test('every keyword indexed in bridge.db is found there; broadcast copies are one hit', async () => {
    let checked = 0;
    for (const [keyword, info] of Object.entries(manifest.keywords)) {
      const result = await reader.search({ query: keyword, limit: 50 });
      assert.equal(result.store, 'legacy');
      if (info.fts.expected === 0) {
        assert.equal(result.hits.length, 0, keyword);
        continue;
      }
      assert.ok(result.hits.length >= 1 && result.hits.length <= info.fts.expected, `${keyword}: ${result.hits.length} hits for ${info.fts.expected} documents`);
      checked++;
    }
    assert.ok(checked >= 30);
    const broadcast = await reader.search({ query: 'broadcastlark' });
    assert.equal(broadcast.hits.length, 1, 'a message document and its two envelope records are one hit');
    assert.match(broadcast.hits[0]?.message ?? '', /^[0-9a-f-]{36}$/);
    const durable = await reader.search({ query: 'tailmarkeromega' });
    assert.match(durable.hits[0]?.conversation ?? '', /^claude:/);
    assert.equal(durable.hits[0]?.project, '/home/fixture/work/orchard_app.v2');
    assert.ok(!existsSync(join(bridgeHome, 'history.db')), 'reading never creates history.db');
    assert.equal(statSync(join(bridgeHome, 'bridge.db')).mtimeMs, bridgeMtime, 'bridge.db is not written');
  });

  test('the literal engine also answers from bridge.db (words FTS5 cannot split)', async () => {
    const result = await reader.search({ query: '京タワ' });
    assert.equal(result.engine, 'plain');
    assert.ok(result.hits.length >= 1);
  });

  test('filters: agent, kind, project (and a subfolder), session alias, job by saved name', async () => {
    const claude = await reader.search({ query: 'reportotter', filters: { agent: 'claude', kind: 'report' }, limit: 50 });
    assert.ok(claude.hits.length >= 1 && claude.hits.every((h) => h.agent === 'claude' && h.kind === 'report'));
    const project = await reader.search({ query: 'rootsequoia', filters: { project: '/home/fixture/work/quarry-tools/src' } });
    assert.ok(project.hits.length >= 1 && project.hits.every((h) => h.project === '/home/fixture/work/quarry-tools'));
    assert.equal((await reader.search({ query: 'rootsequoia', filters: { project: '/home/fixture/work/orchard_app.v2' } })).hits.length, 0);
    // A peer alias (history_sessions) finds the session's transcript records.
    const alias = await reader.search({ query: 'quokkaflux', filters: { session: 'claude-orchard' }, limit: 50 });
    assert.ok(alias.hits.length >= 1);
    // The saved job name finds the job's report, run and messages, with or without a live binding.
    const job = await reader.search({ query: 'reportotter', filters: { job: 'claude-job-d48e4795' }, limit: 50 });
    assert.ok(job.hits.length >= 1);
    const archived = await reader.search({ query: 'archivedjobwalrus', filters: { job: 'opencode-job-33607be8' }, limit: 50 });
    assert.ok(archived.hits.length >= 1 && archived.hits.every((h) => h.job === 'opencode-job-33607be8'));
    assert.equal((await reader.search({ query: 'reportotter', filters: { job: 'no-such-job' } })).hits.length, 0);
    // Native children at any depth belong to the job: codex-job-907b36e7's thread and its child.
    const grandchild = await reader.search({ query: 'grandchildember', filters: { job: 'codex-job-907b36e7' } });
    assert.equal(grandchild.hits.length, 1);
    assert.equal((await reader.search({ query: 'codexmarmot', filters: { job: 'codex-job-907b36e7' } })).hits.length, 0, 'the parent thread is not part of the job');
  });

  test('get_conversation from bridge.db: generation 0 reassembles; a record over 512 KiB comes alone', async () => {
    const expected = manifest.expected.bridgeRecords.records.claudeGeneration0;
    const records = await pages(reader, `claude:${/([0-9a-f-]{36})\.jsonl$/.exec(expected.source)?.[1]}`, 1);
    const bytes = Buffer.concat(
      records
        .filter((r) => r.source === expected.source && r.generation === 0)
        .sort((a, b) => a.offset - b.offset)
        .map((r) => Buffer.from(r.raw, 'base64')),
    );
    assert.equal(bytes.length, expected.bytes);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), expected.sha256);
    const big = await reader.search({ query: 'syntheticoversizetail' });
    const id = big.hits[0]?.conversation as string;
    let after = 0;
    let sawBig = false;
    for (;;) {
      const page = await reader.getConversation({ id, after });
      for (const r of page.records) {
        if (Buffer.byteLength(r.raw, 'base64') > 512 * 1024) {
          sawBig = true;
          assert.equal(page.records.length, 1, 'a record larger than the budget comes alone');
        }
      }
      if (page.next === null) break;
      after = page.next;
    }
    assert.ok(sawBig);
  });
});

describe('job filter over native ancestry (bindings)', () => {
  test('a job bound to a session finds its transcript and native children at every depth', async () => {
    const legacy = await legacyBridgeHome();
    const home = searchTempDir('bound');
    mkdirSync(home, { recursive: true });
    copyFileSync(join(legacy.bridgeHome, 'bridge.db'), join(home, 'bridge.db'));
    // The test's own copy: bind the Claude session (which has native children and a grandchild) to a job.
    const db = new Database(join(home, 'bridge.db'));
    db.prepare("UPDATE conversation_bindings SET job = 'claude-job-bound' WHERE session = '0b405790-722d-43f9-8410-df2c81c542a8'").run();
    const chain = db.prepare("SELECT id FROM conversations WHERE id LIKE 'claude:%' AND parent IS NOT NULL AND parent LIKE '%:native:%'").pluck().all() as string[];
    db.close();
    assert.ok(chain.length >= 1, 'the fixture has a grandchild conversation');
    const reader = new HistoryReader(resolvePaths(homeEnv(join(home, 'user'), home)));
    try {
      // Legacy transcript documents are the raw JSON lines: every Claude line has a sessionId key.
      const all = await reader.search({ query: 'sessionId', filters: { job: 'claude-job-bound' }, limit: 50 });
      const conversations = new Set(all.hits.map((h) => h.conversation));
      assert.ok(conversations.has('claude:0b405790-722d-43f9-8410-df2c81c542a8'));
      for (const id of chain) assert.ok(conversations.has(id), `grandchild ${id} is part of the job (${[...conversations].join(', ')})`);
      assert.equal((await reader.search({ query: 'sidechainvelvet', filters: { job: 'claude-job-bound' } })).hits.length >= 1, true);
      assert.equal((await reader.search({ query: 'codexmarmot', filters: { job: 'claude-job-bound' } })).hits.length, 0);
    } finally {
      reader.close();
    }
  });
});

describe('0.29.10 home (history tables only)', () => {
  test('search answers from the history documents; conversations are empty pages', async () => {
    const out = searchTempDir('v6');
    const made = await run(process.execPath, [join(fixturesDir, 'make-bridge-home.mjs'), out, '--user-version', '6', '--blob-bytes', '0', '--sqlite-module', sqliteModule], { PATH: process.env.PATH });
    assert.equal(made.code, 0, made.stderr);
    const reader = new HistoryReader(resolvePaths(homeEnv(join(out, 'user'), out)));
    try {
      const result = await reader.search({ query: 'directheron', filters: { session: 'claude-orchard' } });
      assert.equal(result.store, 'legacy');
      assert.ok(result.hits.length >= 1);
      assert.equal((await reader.search({ query: 'quokkaflux', filters: { project: '/home/fixture/work/orchard_app.v2' } })).store, 'legacy');
      assert.deepEqual(await reader.getConversation({ id: 'claude:x' }), { conversation: null, records: [], next: null });
    } finally {
      reader.close();
    }
  });
});
