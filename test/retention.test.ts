// Retention: production code may not delete, drop, truncate or vacuum
// anything, nor remove or rewrite files, except the reviewed derived-data
// paths listed here. Source modules open files read-only.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from './helpers/home.ts';

const PRODUCTION = ['src', 'actors', 'protocols', 'bin'];

const DESTRUCTIVE = [
  /\bDELETE\s+FROM\b/i,
  /\bDROP\s+(TABLE|INDEX|TRIGGER|VIEW)\b/i,
  /\bTRUNCATE\b/i,
  /\bVACUUM\b/i,
  /\bunlink(Sync)?\s*\(/,
  /\brm(Sync)?\s*\(/,
  /\brmdir(Sync)?\s*\(/,
  /\b(f)?truncate(Sync)?\s*\(/,
  /\.truncate\s*\(/,
];

/** Reviewed exceptions: [file, the exact statement, why it is allowed]. */
const ALLOWED: ReadonlyArray<readonly [string, string, string]> = [
  ['src/store/reindex-store.ts', "db.prepare('DELETE FROM history_cursors WHERE source = ?').run(REINDEX_KEY);", 'the reindex progress cursor, removed when the reindex finishes'],
  ['src/store/reindex-store.ts', "const deleteDocument = db.prepare('DELETE FROM history_documents WHERE rowid = ?');", 'reindex reset: derived search documents'],
  ['src/store/reindex-store.ts', "const deleteRef = db.prepare('DELETE FROM history_document_refs WHERE doc = ?');", 'reindex reset: refs of derived documents'],
  ['src/store/reindex-store.ts', "const deleteTags = db.prepare('DELETE FROM history_tags WHERE id = ?');", 'reindex reset: tags of derived documents'],
  ['src/store/reindex-store.ts', "const deleteSpan = hasTable(db, 'history_document_spans') ? db.prepare('DELETE FROM history_document_spans WHERE doc = ?') : null;", 'reindex reset: spans (text recipes) of derived documents'],
  ['src/store/schema.ts', 'DELETE FROM history_document_facets WHERE doc = old.rowid;', 'trigger: the facets of a deleted search document (derived data; only reindex deletes documents)'],
  ['src/store/document-text-schema.ts', "db.exec('DROP VIEW history_document_text');", 'the view that derives document text, created again at once in the same transaction with the reach column (a view holds no data)'],
  ['src/store/writer-lock.ts', 'if (current !== null && current.text === text) unlinkSync(path);', 'the writer lock file, only while it still names this process'],
  ['src/sources/opencode/snapshot.ts', 'for (const name of names) await rm(join(this.dir, name), { force: true });', 'leftover private copies of OpenCode databases, inside <home>/opencode-snapshots only'],
  ['src/sources/opencode/snapshot.ts', "for (const suffix of ['', '-wal', '-shm', '-journal']) await rm(`${path}${suffix}`, { force: true });", 'a private copy of an OpenCode database once captured (inside <home>/opencode-snapshots) or checked by doctor (inside its own temp directory)'],
  ['src/doctor/opencode.ts', 'rmdirSync(copy.dir);', "doctor's own empty temp directory (mkdtemp under the OS temp dir), once its private database copy is discarded"],
];

/** Files under src/sources and src/ingest that may write, and only where stated. */
const WRITERS: ReadonlyArray<readonly [string, string]> = [
  ['src/sources/opencode/snapshot.ts', 'writes only its private database copies in <home>/opencode-snapshots, never the provider database'],
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('retention', () => {
  it('production code deletes or truncates nothing outside the reviewed allow-list', () => {
    const found: string[] = [];
    const used = new Set<string>();
    for (const top of PRODUCTION) {
      for (const path of files(join(repoRoot, top))) {
        const file = relative(repoRoot, path);
        readFileSync(path, 'utf8')
          .split('\n')
          .forEach((text, index) => {
            if (!DESTRUCTIVE.some((pattern) => pattern.test(text))) return;
            const allowed = ALLOWED.find(([f, statement]) => f === file && text.trim() === statement);
            if (allowed !== undefined) used.add(`${allowed[0]}:${allowed[1]}`);
            else found.push(`${file}:${index + 1}: ${text.trim()}`);
          });
      }
    }
    assert.deepEqual(found, [], 'unreviewed destructive operations');
    const stale = ALLOWED.filter(([f, statement]) => !used.has(`${f}:${statement}`)).map(([f, s]) => `${f}: ${s}`);
    assert.deepEqual(stale, [], 'allow-list entries that no longer match any code (remove them)');
  });

  it('source modules and the ingest pipeline open files read-only', () => {
    const writes: string[] = [];
    for (const top of ['src/sources', 'src/ingest', 'src/bridge']) {
      for (const path of files(join(repoRoot, top))) {
        if (WRITERS.some(([file]) => file === relative(repoRoot, path))) continue;
        const text = readFileSync(path, 'utf8');
        for (const pattern of [/\bwriteFile(Sync)?\s*\(/, /\bappendFile(Sync)?\s*\(/, /\bopen(Sync)?\s*\([^)]*['"](w|a|r\+|w\+|a\+)['"]/, /\bcreateWriteStream\s*\(/, /\brename(Sync)?\s*\(/, /\butimes(Sync)?\s*\(/, /\bchmod(Sync)?\s*\(/]) {
          if (pattern.test(text)) writes.push(`${relative(repoRoot, path)}: ${pattern}`);
        }
      }
    }
    assert.deepEqual(writes, []);
  });
});
