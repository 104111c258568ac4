// What the soak checks in the store after every restart (read directly from
// history.db while no process runs): no (source, generation, offset) twice;
// every generation of a soak file tiles from offset 0; no record that was
// there before is gone or changed; every new record of a soak file is bytes
// that file really held at that offset; documents, refs, facets and the FTS
// index agree. After a run to completion with --verify: every file on disk is
// exactly one source whose current generation equals the file.

import Database from 'better-sqlite3';
import { registerFunctions } from '../../src/store/open.ts';
import { readFileSync } from 'node:fs';
import type { SoakFiles } from './soak-files.ts';

export interface SeenRecords {
  /** Documents up to this rowid came from the legacy migration, which has no refs for them (0 until known). */
  legacyDocuments: number;
  /** id → "source\0generation\0offset\0length" of every record seen so far. */
  readonly keys: Map<number, string>;
  maxId: number;
}

export function newSeen(): SeenRecords {
  return { keys: new Map(), maxId: 0, legacyDocuments: 0 };
}

function isSoakSource(id: string, roots: readonly string[]): boolean {
  return roots.some((r) => id.startsWith(r)) && !id.includes(':inline:') && !id.includes(':event:');
}

export function checkStore(dbPath: string, files: SoakFiles, roots: readonly string[], seen: SeenRecords, complete: boolean): string[] {
  const failures: string[] = [];
  const db = new Database(dbPath, { fileMustExist: true });
  // Span documents' text (history_fts's content) is derived by a function of ours.
  registerFunctions(db);
  try {
    const one = (sql: string): number => db.prepare(sql).pluck().get() as number;
    const dup = one('SELECT count(*) FROM (SELECT 1 FROM conversation_records GROUP BY source, generation, offset HAVING count(*) > 1)');
    if (dup !== 0) failures.push(`${dup} (source, generation, offset) keys held twice`);

    // No lost or changed record; tiling of soak generations.
    const rows = db.prepare('SELECT id, source, generation, offset, length(raw) AS n FROM conversation_records ORDER BY source, generation, offset').all() as Array<{ id: number; source: string; generation: number; offset: number; n: number }>;
    const now = new Map<number, string>();
    let key = '';
    let expected = 0;
    for (const r of rows) {
      now.set(r.id, `${r.source}\0${r.generation}\0${r.offset}\0${r.n}`);
      if (!isSoakSource(r.source, roots)) continue;
      const k = `${r.source}\0${r.generation}`;
      if (k !== key) {
        key = k;
        expected = 0;
      }
      if (r.offset !== expected) failures.push(`${r.source} generation ${r.generation}: a record at ${r.offset}, expected ${expected}`);
      expected = r.offset + r.n;
    }
    for (const [id, k] of seen.keys) if (now.get(id) !== k) failures.push(`record ${id} (${k.split('\0').slice(0, 3).join(' ')}) is gone or changed`);

    // Every new record of a soak file is what that file held at that offset.
    const paths = db.prepare('SELECT path FROM history_source_paths WHERE source = ?').pluck();
    const current = db.prepare('SELECT path FROM conversation_sources WHERE id = ?').pluck();
    const raws = db.prepare('SELECT id, source, offset, raw FROM conversation_records WHERE id > ? ORDER BY id');
    for (const r of raws.iterate(seen.maxId) as Iterable<{ id: number; source: string; offset: number; raw: Buffer }>) {
      if (!isSoakSource(r.source, roots)) continue;
      const where = [...(paths.all(r.source) as string[]), current.get(r.source) as string];
      const versions = files.versionsAt(where);
      if (!versions.some((v) => v.length >= r.offset + r.raw.length && v.subarray(r.offset, r.offset + r.raw.length).equals(r.raw))) {
        failures.push(`record ${r.id} of ${r.source} at ${r.offset} (${r.raw.length} B) is no version of the file`);
      }
    }
    seen.keys.clear();
    for (const [id, k] of now) seen.keys.set(id, k);
    seen.maxId = Math.max(0, ...now.keys());

    // Derived data agrees with the documents.
    const bare = db.prepare("SELECT count(*) FROM history_documents d WHERE d.id LIKE 'durable:%' AND d.rowid > ? AND NOT EXISTS (SELECT 1 FROM history_document_refs r WHERE r.doc = d.rowid)").pluck().get(seen.legacyDocuments) as number;
    if (bare !== 0) failures.push(`${bare} derived documents have no ref`);
    const lost = one('SELECT count(*) FROM history_document_refs r WHERE NOT EXISTS (SELECT 1 FROM history_documents d WHERE d.rowid = r.doc)');
    if (lost !== 0) failures.push(`${lost} refs name no document`);
    const orphans = one('SELECT count(*) FROM history_document_refs r WHERE NOT EXISTS (SELECT 1 FROM conversation_records c WHERE c.id = r.record)');
    if (orphans !== 0) failures.push(`${orphans} documents refer to no record`);
    const drift = one(`SELECT (SELECT count(*) FROM history_documents d LEFT JOIN history_document_facets x ON x.doc = d.rowid
        WHERE x.doc IS NULL OR x.agent IS NOT d.agent OR x.kind IS NOT d.kind OR x.at IS NOT d.at)
      + (SELECT count(*) FROM history_document_facets x WHERE NOT EXISTS (SELECT 1 FROM history_documents d WHERE d.rowid = x.doc))`);
    if (drift !== 0) failures.push(`${drift} facets rows differ from their documents`);
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'history_fts'").get() !== undefined) {
      try {
        db.prepare("INSERT INTO history_fts(history_fts, rank) VALUES ('integrity-check', 1)").run();
      } catch (error) {
        failures.push(`FTS index disagrees with the documents: ${(error as Error).message}`);
      }
    }

    if (complete) {
      const sources = db.prepare('SELECT id, path, generation FROM conversation_sources').all() as Array<{ id: string; path: string; generation: number }>;
      const gen = db.prepare('SELECT raw FROM conversation_records WHERE source = ? AND generation = ? ORDER BY offset').pluck();
      for (const l of files.live()) {
        const at = sources.filter((s) => s.path === l.path);
        if (at.length !== 1) {
          failures.push(`${l.path}: ${at.length} sources, expected one`);
          continue;
        }
        const s = at[0] as (typeof sources)[number];
        const bytes = Buffer.concat(gen.all(s.id, s.generation) as Buffer[]);
        if (!bytes.equals(readFileSync(l.path as string))) failures.push(`${l.path}: generation ${s.generation} (${bytes.length} B) differs from the file (${readFileSync(l.path as string).length} B)`);
      }
    }
  } finally {
    db.close();
  }
  return failures;
}
