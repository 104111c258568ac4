// Capture of the generated fixture home (make-fixtures.mjs), end to end
// through the CLI: exact bytes, keywords in the right conversations, idempotent
// re-runs, untouched sources.

import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { HistoryService } from '../src/service/history-service.ts';
import { cli, cliJson, envFor, fixtureHome, sha256, type FixtureManifest } from './helpers/home.ts';
import { tilingProblems, totals, withStore } from './helpers/store.ts';

interface SourceRow {
  id: string;
  path: string;
  format: string;
  conversation: string;
  generation: number;
  offset: number;
}

interface Hit {
  conversation: string | null;
  cursor: string | null;
  agent: string;
  project: string | null;
}

/** Files a capture must retain: Claude and Codex transcripts, subagent files and sidecars, persisted tool output. */
function capturedFiles(manifest: FixtureManifest): FixtureManifest['files'] {
  return manifest.files.filter(
    (f) => (f.path.startsWith('.claude/projects/') && !f.path.endsWith('sessions-index.json')) || (f.path.startsWith('.codex/') && /rollout-.*\.jsonl$/.test(f.path)),
  );
}

/**
 * The conversation and project of each line of a fixture file, by the rules
 * of the specification (computed here from the bytes and the manifest, not by
 * the code under test).
 */
function lineOwners(manifest: FixtureManifest, home: string, path: string): Array<{ text: string; conversation: string; project: string }> {
  const text = readFileSync(join(home, path), 'utf8');
  const lines = text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
  const codex = manifest.codex.threads.find((t) => t.file === path);
  if (codex !== undefined) {
    const project = (JSON.parse(lines[0] as string) as { payload: { cwd: string } }).payload.cwd;
    return lines.map((line) => ({ text: line, conversation: `codex:${codex.threadId}`, project }));
  }
  for (const session of manifest.claude.sessions) {
    const base = `claude:${session.sessionId}`;
    const child = session.children.find((c) => c.file === path);
    const own = child !== undefined ? `${base}:native:${child.agentId}` : path.includes(`/${session.sessionId}/tool-results/`) || path === session.file ? base : null;
    if (own === null) continue;
    // Persisted tool output has no cwd of its own: it belongs to its session's project.
    let project = own === base && path !== session.file ? (lineOwners(manifest, home, session.file).find((l) => l.project !== '')?.project ?? '') : '';
    return lines.map((line) => {
      let conversation = own;
      try {
        const record = JSON.parse(line) as { isSidechain?: boolean; agentId?: string; cwd?: string };
        if (typeof record.cwd === 'string' && project === '') project = record.cwd;
        if (record.isSidechain === true && typeof record.agentId === 'string' && child === undefined) conversation = `${base}:native:${record.agentId}`;
      } catch {
        // persisted tool output is plain text
      }
      return { text: line, conversation, project };
    });
  }
  throw new Error(`no manifest entry for ${path}`);
}

describe('capture of the fixture home', () => {
  let home: string;
  let manifest: FixtureManifest;
  let env: NodeJS.ProcessEnv;
  let sources: SourceRow[];

  before(async () => {
    ({ home, manifest } = fixtureHome());
    env = envFor(home);
    const run = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(run.code, 0, run.stderr);
    sources = await cliJson<SourceRow[]>(['sources', '--json'], env);
  });

  it('retains every Claude and Codex file byte-exactly (sha256 through `raw`)', async () => {
    const files = capturedFiles(manifest);
    assert.ok(files.length >= 14, `expected the fixture's transcripts, got ${files.length}`);
    for (const file of files) {
      const path = join(home, file.path);
      assert.ok(sources.some((s) => s.path === path), `${file.path} is registered`);
      const raw = await cli(['raw', path], env);
      assert.equal(raw.code, 0, raw.stderr);
      assert.equal(raw.stdout.length, file.bytes, `${file.path} length`);
      assert.equal(sha256(raw.stdout), file.sha256, `${file.path} sha256`);
    }
  });

  it('cuts chunks only at newlines or UTF-8 boundaries, around the emoji that straddles offset 65,536', () => {
    const split = manifest.sources.filter((s) => typeof s.path === 'string' && s.path.startsWith('.') && (s.utf8ChunkSplits ?? []).length > 0);
    assert.ok(split.length >= 2, 'the fixture has lines whose code point is cut by a 64 KiB boundary');
    withStore(home, (db) => {
      for (const source of split) {
        const records = db
          .prepare('SELECT offset, raw FROM conversation_records WHERE source = ? ORDER BY offset')
          .all(join(home, source.path)) as Array<{ offset: number; raw: Buffer }>;
        assert.ok(records.length > 1, `${source.path} spans several chunks`);
        for (const record of records) {
          assert.ok(record.raw.length <= 64 * 1024, 'a chunk is at most 64 KiB');
          assert.ok(!record.raw.toString('utf8').includes('\uFFFD'), `${source.path}@${record.offset} decodes without a broken code point`);
        }
      }
      assert.deepEqual(tilingProblems(db), []);
    });
  });

  it('finds every Claude and Codex keyword in exactly the conversations holding it, with agent and project filters', async () => {
    const keywords = Object.entries(manifest.keywords).filter(([, k]) => (k.agent === 'claude' || k.agent === 'codex') && k.files.length > 0);
    assert.ok(keywords.length >= 30);
    for (const [keyword, info] of keywords) {
      // Expected: lines containing the keyword, per (project, conversation).
      const expected = new Map<string, Map<string, number>>();
      for (const file of info.files) {
        for (const line of lineOwners(manifest, home, file.path)) {
          if (!line.text.includes(keyword)) continue;
          const byConversation = expected.get(line.project) ?? new Map<string, number>();
          byConversation.set(line.conversation, (byConversation.get(line.conversation) ?? 0) + 1);
          expected.set(line.project, byConversation);
        }
      }
      assert.ok(expected.size > 0, `${keyword}: the fixture holds it`);
      for (const [project, byConversation] of expected) {
        const result = await cliJson<{ hits: Hit[] }>(['search', keyword, '--agent', info.agent, '--project', project, '--limit', '50', '--json'], env);
        const found = new Map<string, Set<string>>();
        for (const hit of result.hits) {
          assert.equal(hit.agent, info.agent);
          assert.equal(hit.project, project);
          const lines = found.get(hit.conversation as string) ?? new Set<string>();
          lines.add(hit.cursor as string);
          found.set(hit.conversation as string, lines);
        }
        const counts = new Map([...found].map(([conversation, lines]) => [conversation, lines.size]));
        assert.deepEqual(Object.fromEntries(counts), Object.fromEntries(byConversation), `${keyword} in ${project}`);
      }
    }
  });

  it('records native ancestry: subagent files, nested agents, inline sidechains, Codex thread_spawn; forks stay roots', () => {
    const parents = withStore(home, (db) => new Map((db.prepare('SELECT id, parent FROM conversations').all() as Array<{ id: string; parent: string | null }>).map((r) => [r.id, r.parent])));
    for (const session of manifest.claude.sessions) {
      const base = `claude:${session.sessionId}`;
      assert.equal(parents.get(base), null, `${base} is a root`);
      for (const child of session.children) {
        const expected = child.parentAgentId ? `${base}:native:${child.parentAgentId}` : base;
        assert.equal(parents.get(`${base}:native:${child.agentId}`), expected, `parent of agent ${child.agentId}`);
      }
    }
    for (const thread of manifest.codex.threads) {
      assert.equal(parents.get(`codex:${thread.threadId}`), thread.nativeParent === null ? null : `codex:${thread.nativeParent}`, `${thread.relation} ${thread.threadId}`);
    }
  });

  it('a second ingest adds nothing', async () => {
    const before = totals(home);
    const again = await cli(['ingest', '--once'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(totals(home), before);
  });

  it('a fresh serving process adds nothing', async () => {
    const before = totals(home);
    const service = new HistoryService({ env, mode: 'serve', pace: 'max' });
    await service.start();
    for (let i = 0; i < 100; i++) {
      const status = await service.status();
      if (status.discovery.passes > 0 && status.backlog.sources === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const status = await service.status();
    await service.stop();
    assert.ok(status.discovery.passes > 0, 'the service walked the roots');
    assert.equal(status.batches.committed, 0, 'nothing to commit');
    assert.deepEqual(totals(home), before);
  });

  it('leaves every source file unchanged (size, mtime, sha256)', () => {
    for (const file of manifest.files) {
      if (file.path === 'opencode.db') continue;
      const path = join(home, file.path);
      const stat = statSync(path);
      assert.equal(stat.size, file.bytes, file.path);
      if (file.mtime !== undefined) assert.equal(Math.round(stat.mtimeMs), Date.parse(file.mtime), file.path);
      assert.equal(sha256(readFileSync(path)), file.sha256, file.path);
    }
  });
});
