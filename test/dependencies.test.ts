// Dependency direction (DESIGN.md, layout): protocols/ is the vocabulary both
// sides of a boundary import, so it depends on no domain code or actor; the
// store knows no bridge, source or ingest module (their shapes come from
// protocols/, key formats from src/keys/); sources know no store (SQLite
// openers come from src/sqlite/). A scan of every import specifier in the
// source tree, like the retention test scans for destructive SQL.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from './helpers/home.ts';

const SCANNED = ['src', 'actors', 'protocols', 'bin'];

/** [importing folder, folders it must not import from, why]. */
const RULES: ReadonlyArray<readonly [string, readonly string[], string]> = [
  ['protocols/', ['src/', 'actors/'], 'the vocabulary depends on nothing'],
  ['src/store/', ['src/bridge/', 'src/sources/', 'src/ingest/'], 'the store takes shapes from protocols/ and key formats from src/keys/'],
  ['src/sources/', ['src/store/'], 'sources open SQLite through src/sqlite/'],
];

// Static imports and re-exports (also across lines), side-effect imports, dynamic import().
const SPECIFIERS = [
  /\b(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]/g,
  /^\s*import\s*['"]([^'"]+)['"]/gm,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(?:ts|mts|js|mjs)$/.test(name) ? [path] : [];
  });
}

/** Repo-relative paths (with `/`) of the local modules `file` imports. */
function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  for (const pattern of SPECIFIERS) {
    for (const match of text.matchAll(pattern)) {
      const spec = match[1] as string;
      if (!spec.startsWith('.')) continue; // a package
      found.push(normalize(join(dirname(file), spec)).split(sep).join('/'));
    }
  }
  return found;
}

/** Every import that breaks a rule, as `file -> imported (why)`. */
function violations(sources: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of sources) {
    for (const [from, forbidden, why] of RULES) {
      if (!file.startsWith(from)) continue;
      for (const target of importsOf(file, text)) {
        if (forbidden.some((f) => target.startsWith(f))) out.push(`${file} -> ${target} (${why})`);
      }
    }
  }
  return out.sort();
}

function tree(): Map<string, string> {
  const sources = new Map<string, string>();
  for (const top of SCANNED) {
    for (const path of files(join(repoRoot, top))) sources.set(relative(repoRoot, path).split(sep).join('/'), readFileSync(path, 'utf8'));
  }
  return sources;
}

describe('dependency direction', () => {
  it('no protocols/ file imports src/ or actors/; src/store/ imports no bridge, source or ingest module; src/sources/ imports no store module', () => {
    const sources = tree();
    // The scan sees the tree: each guarded folder has files, and its imports resolve to files of the tree.
    for (const [from] of RULES) assert.ok([...sources.keys()].some((f) => f.startsWith(from)), `no files under ${from}`);
    const resolved = [...sources].flatMap(([file, text]) => importsOf(file, text).map((target) => [file, target] as const));
    assert.ok(resolved.length > 100, `only ${resolved.length} local imports found`);
    assert.deepEqual(resolved.filter(([, target]) => !sources.has(target)).map(([file, target]) => `${file} -> ${target}`), []);
    assert.deepEqual(violations(sources), []);
  });

  it('the scan reports a forbidden import in every form an import takes', () => {
    const planted = new Map<string, string>([
      ['protocols/history.ts', "import type { CommitChunk } from '../src/store/commit.ts';\n"],
      ['protocols/service.ts', "export type { Thing } from '../actors/supervisor.ts';\n"],
      ['src/store/search/hits.ts', "import {\n  messageOfSource,\n} from '../../bridge/keys.ts';\n"],
      ['src/store/writer.ts', "const m = await import('../ingest/provider.ts');\n"],
      ['src/store/open.ts', "import '../sources/claude.ts';\n"],
      ['src/sources/opencode/access.ts', "import { openQueryOnly } from '../../store/open.ts';\n"],
      // Allowed: the store and sources import protocols/, src/keys/, src/sqlite/ and packages.
      ['src/store/appender.ts', "import { runOfConversation } from '../keys/bridge.ts';\nimport type { RowBatch } from '../../protocols/rows.ts';\nimport Database from 'better-sqlite3';\n"],
      ['src/sources/opencode/database.ts', "import { openQueryOnly } from '../../sqlite/open.ts';\n"],
    ]);
    assert.deepEqual(violations(planted), [
      'protocols/history.ts -> src/store/commit.ts (the vocabulary depends on nothing)',
      'protocols/service.ts -> actors/supervisor.ts (the vocabulary depends on nothing)',
      'src/sources/opencode/access.ts -> src/store/open.ts (sources open SQLite through src/sqlite/)',
      'src/store/open.ts -> src/sources/claude.ts (the store takes shapes from protocols/ and key formats from src/keys/)',
      'src/store/search/hits.ts -> src/bridge/keys.ts (the store takes shapes from protocols/ and key formats from src/keys/)',
      'src/store/writer.ts -> src/ingest/provider.ts (the store takes shapes from protocols/ and key formats from src/keys/)',
    ]);
  });
});
