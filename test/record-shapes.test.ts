// The record shapes real Claude Code and Codex CLIs write (helpers/real-shapes.ts),
// captured through the CLI: every file retained byte-exactly, every planted
// word of human or tool text found in exactly the conversations and lines
// holding it (and words of metadata fields never), ancestry and projects as
// the bytes say, capture order kept (never sorted or deduplicated by time),
// and a snapshot-only file kept without a made-up project.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { cli, cliJson, envFor, tempDir } from './helpers/home.ts';
import { type ShapesManifest, writeShapesHome } from './helpers/real-shapes.ts';
import { tilingProblems, withStore } from './helpers/store.ts';

interface Hit {
  conversation: string | null;
  cursor: string | null;
  project: string | null;
  snippet: string;
  at: number;
}

interface Page {
  conversation: { id: string; project: string; parent: string | null } | null;
  records: Array<{ source: string; generation: number; offset: number; text: string }>;
  next: number | null;
}

describe('record shapes of the real CLIs', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let manifest: ShapesManifest;

  const search = (query: string, ...flags: string[]): Promise<{ hits: Hit[] }> => cliJson<{ hits: Hit[] }>(['search', query, '--limit', '50', '--json', ...flags], env);

  before(async () => {
    home = tempDir();
    env = envFor(home);
    manifest = writeShapesHome(home);
    const run = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(run.code, 0, run.stderr);
  });

  it('retains every file byte-exactly, in chunks that tile each generation', async () => {
    const sources = await cliJson<Array<{ path: string }>>(['sources', '--json'], env);
    assert.equal(manifest.files.length, 14);
    for (const file of manifest.files) {
      const path = join(home, file.path);
      assert.ok(sources.some((s) => s.path === path), `${file.path} is a source`);
      const raw = await cli(['raw', path], env);
      assert.equal(raw.code, 0, raw.stderr);
      assert.ok(raw.stdout.equals(file.bytes), `${file.path} is retained exactly`);
    }
    withStore(home, (db) => assert.deepEqual(tilingProblems(db), []));
  });

  it('finds every word of human or tool text in exactly the conversations and lines holding it', async () => {
    const words = Object.entries(manifest.searchable);
    assert.ok(words.length >= 40, `planted ${words.length} words`);
    const wrong: string[] = [];
    for (const [word, expected] of words) {
      const found: Record<string, Set<string>> = {};
      for (const hit of (await search(word)).hits) (found[hit.conversation ?? 'none'] ??= new Set()).add(hit.cursor ?? '');
      const counts = Object.fromEntries(Object.entries(found).map(([c, lines]) => [c, lines.size]));
      if (JSON.stringify(Object.entries(counts).sort()) !== JSON.stringify(Object.entries(expected).sort())) {
        wrong.push(`${word}: expected ${JSON.stringify(expected)}, found ${JSON.stringify(counts)}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('never finds words that only occur in metadata fields (ids, paths, versions, branches, signatures, snapshots)', async () => {
    assert.ok(manifest.metadata.length >= 15);
    const found: string[] = [];
    for (const word of manifest.metadata) {
      const result = await search(word);
      if (result.hits.length > 0) found.push(`${word}: ${result.hits.map((h) => h.snippet.slice(0, 80)).join(' | ')}`);
    }
    assert.deepEqual(found, []);
  });

  it('strips terminal escape sequences and control characters from the derived text (the raw bytes keep them)', async () => {
    const hit = (await search('ansiredword')).hits[0] as Hit;
    assert.ok(hit !== undefined);
    assert.doesNotMatch(hit.snippet, /[\u0000-\u0008\u000b-\u001f\u007f]/, 'no control characters in the snippet');
    assert.doesNotMatch(hit.snippet, /\[31m|\[0m/, 'no escape sequence remnants in the snippet');
    const main = manifest.files.find((f) => f.path.endsWith(`${manifest.ids.main}.jsonl`));
    assert.ok(main?.bytes.includes('\\u001b[31mansiredword'), 'the file holds the escape');
  });

  it('records native ancestry and projects as the bytes say; a first record of another session names no conversation', () => {
    const rows = withStore(home, (db) => db.prepare('SELECT id, parent, project FROM conversations').all() as Array<{ id: string; parent: string | null; project: string }>);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [id, parent] of Object.entries(manifest.parents)) {
      assert.ok(byId.has(id), `${id} exists`);
      assert.equal(byId.get(id)?.parent, parent, `${id} parent`);
      assert.equal(byId.get(id)?.project, manifest.projects[id], `${id} project`);
    }
    for (const id of manifest.absent) assert.equal(byId.has(id), false, `${id} is not a conversation`);
    assert.deepEqual(
      rows.map((r) => r.id).sort(),
      Object.keys(manifest.parents).sort(),
      'no other conversation was made up',
    );
  });

  it('keeps a snapshot-only file exactly, as a conversation without a project', async () => {
    const id = `claude:${manifest.ids.snapshotOnly}`;
    const page = await cliJson<Page>(['conversation', id, '--json', '--limit', '100'], env);
    assert.equal(page.conversation?.project, '');
    assert.equal(page.conversation?.parent, null);
    const file = manifest.files.find((f) => f.path.endsWith(`${manifest.ids.snapshotOnly}.jsonl`));
    assert.equal(page.records.map((r) => r.text).join(''), file?.bytes.toString('utf8'));
    const hits = (await search('snapshotsummaryword')).hits;
    assert.equal(hits.length, 1);
    assert.equal(hits[0]?.project ?? '', '', 'its summary is found, under no project');
  });

  it('keeps capture order: lines out of time order stay in byte order, duplicated lines both stay', async () => {
    const id = `claude:${manifest.ids.main}`;
    const path = join(home, manifest.files.find((f) => f.path.endsWith(`${manifest.ids.main}.jsonl`))?.path as string);
    const pages = (await cli(['conversation', id, '--all', '--json'], env)).stdout.toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as Page);
    const own = pages.flatMap((p) => p.records).filter((r) => r.source === path);
    const file = manifest.files.find((f) => f.path.endsWith(`${manifest.ids.main}.jsonl`))?.bytes.toString('utf8');
    assert.equal(own.map((r) => r.text).join(''), file, 'records in id order are the file in byte order');
    const twice = (await search(manifest.ids.duplicateWord)).hits;
    assert.equal(new Set(twice.map((h) => h.cursor)).size, 2, 'both copies of a duplicated line are found');
    const late = Date.parse(manifest.ids.lateLineAt);
    const before = await search(manifest.ids.lateLineWord, '--until', new Date(late + 1).toISOString());
    assert.equal(before.hits.length, 1, 'the out-of-order line is found at its own time');
    assert.equal(before.hits[0]?.at, late);
    assert.equal((await search(manifest.ids.lateLineWord, '--since', new Date(late + 1).toISOString())).hits.length, 0);
  });

  it('takes Codex times from the lines (UTC), not from the local-time date folder', async () => {
    const word = 'iderequestword';
    const utcDay = '2026-03-15T00:00:00Z'; // the folder says 2026/03/14: the writer's local evening
    assert.ok(manifest.ids.codexFullPath.includes('/2026/03/14/'));
    assert.equal((await search(word, '--since', utcDay)).hits.length, 2);
    assert.equal((await search(word, '--until', utcDay)).hits.length, 0);
  });
});
