// Bundle a TypeScript test driver into one plain ESM file (esbuild, which tsx
// ships with), so a child process starts in ~0.1 s instead of registering
// tsx first: the kill test starts dozens of them. better-sqlite3 (a native
// addon) stays outside the bundle and is loaded from the repository.

import { build, type Plugin } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot as REPO } from './home.ts';

const nativeFromRepo: Plugin = {
  name: 'native-from-repo',
  setup(b) {
    b.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: 'better-sqlite3', namespace: 'native' }));
    b.onLoad({ filter: /.*/, namespace: 'native' }, () => ({
      contents: `import { createRequire } from 'node:module'; export default createRequire(${JSON.stringify(join(REPO, 'package.json'))})('better-sqlite3');`,
      loader: 'js',
    }));
  },
};

const dir = mkdtempSync(join(tmpdir(), 'ab-bundle-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** Bundle `entry` (a path under the repository) and return the .mjs path. */
export async function bundle(entry: string): Promise<string> {
  const outfile = join(dir, `${entry.replace(/[^A-Za-z0-9]+/g, '-')}.mjs`);
  await build({ entryPoints: [join(REPO, entry)], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, plugins: [nativeFromRepo], logLevel: 'error' });
  return outfile;
}
