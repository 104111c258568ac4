// Crash safety, by killing a real process: `agent-bridge ingest --once` is
// SIGKILLed at 24 moments spread over a capture, restarted each time, and
// finally run to completion. Every file must then be retained exactly, in one
// generation, with records that tile each file without gap or overlap, no
// duplicate (source, generation, offset), and documents only for records.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cli, cliJson, envFor, fixturesDir, prng, sha256, spawnCli, sqliteModule, tempDir } from './helpers/home.ts';
import { facetsDrift, tilingProblems, withStore } from './helpers/store.ts';

const KILLS = 24;

interface CorpusFile {
  path: string;
  bytes: number;
  sha256: string;
}

function corpus(): { home: string; files: CorpusFile[] } {
  const home = tempDir('abh-crash-');
  execFileSync(process.execPath, [join(fixturesDir, 'make-corpus.mjs'), home, '--bytes', '24MiB', '--mix', 'claude=0.6,codex=0.4,opencode=0', '--workers', '1', '--sqlite-module', sqliteModule], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const manifest = JSON.parse(readFileSync(join(home, 'corpus-manifest.json'), 'utf8')) as { files: CorpusFile[] };
  return { home, files: manifest.files.filter((f) => f.path.endsWith('.jsonl') && !f.path.endsWith('session_index.jsonl')) };
}

describe('crash safety', () => {
  it(`loses and duplicates nothing when ingestion is SIGKILLed at ${KILLS} moments`, async () => {
    const { home, files } = corpus();
    assert.ok(files.length > 20, 'a corpus of many files');
    const env = envFor(home);
    const random = prng(20261130);
    const killedAt: number[] = [];
    for (let i = 0; i < KILLS; i++) {
      // Moments from process start-up to deep inside the capture.
      const delay = 150 + Math.floor(random() * 4000);
      const child = spawnCli(['ingest', '--once', '--pace', 'spec'], env);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const timer = setTimeout(() => child.kill('SIGKILL'), delay);
      const code = await exited;
      clearTimeout(timer);
      if (code === null) killedAt.push(delay);
    }
    assert.ok(killedAt.length >= KILLS - 4, `most runs were killed mid-way (${killedAt.length} of ${KILLS})`);

    const finish = await cli(['ingest', '--once', '--pace', 'max'], env);
    assert.equal(finish.code, 0, finish.stderr);

    const sources = await cliJson<Array<{ id: string; path: string; generation: number; offset: number }>>(['sources', '--json'], env);
    for (const file of files) {
      const path = join(home, file.path);
      const source = sources.find((s) => s.path === path);
      assert.ok(source !== undefined, `${file.path} registered`);
      assert.equal(source.generation, 0, `${file.path}: a crash never starts a new generation`);
      assert.equal(source.offset, file.bytes, `${file.path}: fully captured`);
      const raw = await cli(['raw', path], env);
      assert.equal(sha256(raw.stdout), file.sha256, `${file.path}: exact bytes`);
    }
    withStore(home, (db) => {
      assert.deepEqual(tilingProblems(db), []);
      const duplicates = db.prepare('SELECT count(*) FROM (SELECT source, generation, offset FROM conversation_records GROUP BY 1, 2, 3 HAVING count(*) > 1)').pluck().get();
      assert.equal(duplicates, 0);
      const orphans = db
        .prepare("SELECT count(*) FROM history_document_refs r WHERE NOT EXISTS (SELECT 1 FROM conversation_records c WHERE c.id = r.record)")
        .pluck()
        .get();
      assert.equal(orphans, 0, 'every document belongs to a retained record');
      const refs = db.prepare('SELECT count(*) FROM history_document_refs').pluck().get();
      const documents = db.prepare("SELECT count(*) FROM history_documents WHERE id LIKE 'durable:%'").pluck().get();
      assert.equal(refs, documents, 'one ref per derived document');
      assert.equal(facetsDrift(db), 0, 'the facets mirror the documents');
      // A record's documents were written with it: a chunk has documents, or its lines were
      // routed to inline sidechain records that have them.
      const bare = db
        .prepare(
          `SELECT count(*) FROM conversation_records c
           WHERE c.source LIKE '%.jsonl' AND length(c.raw) > 200
             AND NOT EXISTS (SELECT 1 FROM history_document_refs r WHERE r.record = c.id)
             AND NOT EXISTS (SELECT 1 FROM conversation_records i JOIN history_document_refs r ON r.record = i.id
                             WHERE i.source = c.source || ':inline:' || i.conversation AND i.generation = c.generation
                               AND i.offset >= c.offset AND i.offset < c.offset + length(c.raw))`,
        )
        .pluck()
        .get();
      assert.equal(bare, 0, 'no record committed without its documents');
    });
  });
});
