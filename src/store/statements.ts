// A small per-connection cache of prepared statements, for SQL run often on
// a connection that does not hold its statements itself: search SQL depends on
// the filters (a handful of shapes), so preparing on every query would cost
// more than many of the queries themselves; the reindex progress is read before
// every batch.

import type Database from 'better-sqlite3';
import { RecentMap } from '../cache/recent-map.ts';
import type { Db } from './open.ts';

export type Statement = Database.Statement<unknown[], unknown>;

const CAPACITY = 64;
const caches = new WeakMap<Db, RecentMap<string, Statement>>();

export function prepared(db: Db, sql: string): Statement {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new RecentMap(CAPACITY);
    caches.set(db, cache);
  }
  let statement = cache.get(sql);
  if (statement === undefined) {
    statement = db.prepare<unknown[], unknown>(sql);
    cache.set(sql, statement);
  }
  return statement;
}
