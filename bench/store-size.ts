// bench/store-size: where the bytes of a history.db go (dbstat by table and
// index, bytes per source byte), for any store: a captured corpus, a migrated
// home.
//
//   node --import tsx bench/store-size.ts --db <history.db> [--source-bytes N]
//
// Source bytes default to the sum of the file sources' cursor offsets (what
// capture read); a migrated store counts its legacy records' bytes there too.

import Database from 'better-sqlite3';
import { parseArgs } from 'node:util';
import { formatBreakdown, storeBreakdown } from './lib/store-breakdown.ts';

const { values } = parseArgs({ options: { db: { type: 'string' }, 'source-bytes': { type: 'string' } } });
if (values.db === undefined) throw new Error('usage: bench/store-size.ts --db <history.db> [--source-bytes N]');
let sourceBytes = Number(values['source-bytes'] ?? Number.NaN);
if (Number.isNaN(sourceBytes)) {
  const db = new Database(values.db, { readonly: true, fileMustExist: true });
  sourceBytes = (db.prepare('SELECT coalesce(sum(offset), 0) FROM conversation_sources').pluck().get() as number) ?? 0;
  db.close();
}
process.stdout.write(`${formatBreakdown(storeBreakdown(values.db), sourceBytes).join('\n')}\n`);
