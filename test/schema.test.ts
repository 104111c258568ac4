// history.db schema version 1: the legacy table set exactly as agent-bridge
// 0.29.x declared it, append-only records, and refusal of a future version.

import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LEGACY_TABLES } from '../src/store/schema.ts';
import { cli, envFor, fixtureHome, fixturesDir, sha256, sqliteModule, tempDir } from './helpers/home.ts';

function columns(db: Database.Database, table: string): unknown[] {
  return db.prepare(`PRAGMA table_info(${table})`).all();
}

describe('history.db schema', () => {
  it('declares the 14 legacy tables exactly as a real 0.29.17 bridge.db does', async () => {
    const legacyHome = tempDir('abh-legacy-');
    execFileSync(process.execPath, [join(fixturesDir, 'make-bridge-home.mjs'), legacyHome, '--force', '--blob-bytes', '0', '--rows', '0', '--sqlite-module', sqliteModule], { stdio: 'ignore' });
    const { home } = fixtureHome();
    const run = await cli(['ingest', '--once', '--pace', 'max'], envFor(home));
    assert.equal(run.code, 0, run.stderr);
    const legacy = new Database(join(legacyHome, 'bridge.db'), { readonly: true });
    const ours = new Database(join(home, '.agent-bridge', 'history.db'), { readonly: true });
    for (const table of LEGACY_TABLES) assert.deepEqual(columns(ours, table), columns(legacy, table), table);
    const indexes = (db: Database.Database, table: string) =>
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name").pluck().all(table) as string[]).filter((n) => !n.startsWith('idx_history_document_refs') && !n.startsWith('idx_conversation_sources_') && n !== 'idx_conversations_session');
    for (const table of LEGACY_TABLES) assert.deepEqual(indexes(ours, table), indexes(legacy, table), `indexes of ${table}`);
    assert.equal(ours.pragma('user_version', { simple: true }), 1);
    assert.equal(ours.pragma('journal_mode', { simple: true }), 'wal');
    legacy.close();
    ours.close();
  });

  it('refuses to change retained records (append-only triggers)', async () => {
    const { home } = fixtureHome();
    await cli(['ingest', '--once', '--pace', 'max'], envFor(home));
    const db = new Database(join(home, '.agent-bridge', 'history.db'));
    assert.throws(() => db.prepare('DELETE FROM conversation_records WHERE id = 1').run(), /append-only/);
    assert.throws(() => db.prepare("UPDATE conversation_records SET body = 'x' WHERE id = 1").run(), /append-only/);
    db.close();
  });

  it('refuses a store written by a newer version, with a clear error, and leaves it untouched', async () => {
    const home = tempDir();
    mkdirSync(join(home, '.agent-bridge'), { recursive: true });
    const path = join(home, '.agent-bridge', 'history.db');
    const future = new Database(path);
    future.exec('CREATE TABLE from_the_future (x TEXT)');
    future.pragma('user_version = 2');
    future.close();
    const before = sha256(readFileSync(path));
    const run = await cli(['ingest', '--once'], envFor(home));
    assert.equal(run.code, 1);
    assert.match(run.stderr, /unsupported history store version: 2/);
    assert.equal(sha256(readFileSync(path)), before, 'the newer store is not modified');
    const search = await cli(['search', 'anything', '--json'], envFor(home));
    assert.equal(search.code, 1);
    assert.match(search.stderr, /unsupported history store version: 2/);
  });
});
