// Runtime checks: the Node version against package.json's engines field,
// better-sqlite3 loading (its native addon is built for one Node ABI), and
// FTS5 in that SQLite build.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { DoctorCheck } from '../../protocols/doctor.ts';
import { ftsAvailable } from '../store/open.ts';
import { fail, messageOf, ok, warn } from './check.ts';

const require = createRequire(import.meta.url);

/** The minimum Node version package.json's `engines.node` (">=20.19") names. */
export function requiredNode(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines?: { node?: string } };
  return /(\d+(?:\.\d+){0,2})/.exec(pkg.engines?.node ?? '')?.[1] ?? '20.19';
}

function parts(version: string): number[] {
  return version.replace(/^v/, '').split('.').map((n) => Number.parseInt(n, 10) || 0);
}

export function versionAtLeast(version: string, minimum: string): boolean {
  const [a, b] = [parts(version), parts(minimum)];
  for (let i = 0; i < 3; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

export function checkNode(version: string = process.versions.node): DoctorCheck[] {
  const minimum = requiredNode();
  const title = 'Node.js';
  if (versionAtLeast(version, minimum)) return [ok('node', title, `${version} (${minimum} or later required)`)];
  return [fail('node', title, `${version} is older than ${minimum}`, `install Node.js ${minimum} or later (then run \`npm ci\` again so better-sqlite3 is rebuilt for it)`)];
}

/** Loads better-sqlite3's native addon by opening an in-memory database. */
export function checkSqlite(): DoctorCheck[] {
  const title = 'better-sqlite3';
  try {
    const Database = require('better-sqlite3') as typeof import('better-sqlite3');
    const db = new Database(':memory:');
    try {
      const version = (require('better-sqlite3/package.json') as { version: string }).version;
      const sqlite = db.prepare('SELECT sqlite_version()').pluck().get() as string;
      return [ok('sqlite', title, `${version} loads (SQLite ${sqlite})`)];
    } finally {
      db.close();
    }
  } catch (error) {
    return [fail('sqlite', title, `does not load: ${messageOf(error).split('\n')[0] ?? ''}`, `run \`npm rebuild better-sqlite3\` (or \`npm ci\`) with this Node.js (${process.versions.node})`)];
  }
}

export function checkFts5Build(): DoctorCheck[] {
  const title = 'FTS5 in SQLite';
  if (ftsAvailable()) return [ok('fts5', title, 'available: search uses the full-text index')];
  return [
    warn(
      'fts5',
      title,
      'this SQLite build lacks FTS5: new stores are created without a full-text index and search falls back to literal matching (slower on large stores)',
      'reinstall the pinned better-sqlite3 (`npm ci`): its bundled SQLite has FTS5',
    ),
  ];
}

/**
 * How this process runs: the compiled JavaScript in dist/ (bin/build.mjs;
 * bin/agent-bridge runs it only while it matches the sources), or the
 * TypeScript sources through tsx, whose loader takes threads of its own and
 * memory in every thread that imports TypeScript.
 */
export function checkCode(moduleUrl: string = import.meta.url, env: NodeJS.ProcessEnv = process.env): DoctorCheck[] {
  const title = 'code';
  if (moduleUrl.endsWith('.js')) return [ok('code', title, 'compiled JavaScript (dist/, built from these sources)')];
  const why = env.AGENT_BRIDGE_FROM_SOURCES === '1' ? 'AGENT_BRIDGE_FROM_SOURCES=1 asks for them' : 'dist/ is missing or older than the sources';
  return [
    warn(
      'code',
      title,
      `TypeScript sources through tsx (${why}): the TypeScript loader costs tens of MiB of memory (60 MiB in an idle serve)`,
      'run `npm run build` (npm ci and npm start do it) and leave AGENT_BRIDGE_FROM_SOURCES unset',
    ),
  ];
}
