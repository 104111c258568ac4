// Compiled JavaScript for the product's threads, in dist/.
//
// Why: Node 20 runs TypeScript only through a loader (tsx), whose hooks run on
// threads of their own, and every thread that imports TypeScript (main,
// history worker, parser, readers) carries the loader and the source maps of
// what it loaded: 60 MiB of an idle `serve`'s RSS. `npm ci` (prepare) and
// `npm start` (prestart) compile actors/, protocols/ and src/ here, one
// output file per source file, with
// relative `.ts` specifiers rewritten to `.js`; every other file of those
// folders (the .mjs/.cjs entries, the dashboard's assets) and package.json are
// copied beside them, so paths taken relative to import.meta.url hold in dist/.
//
// Invariant: bin/agent-bridge runs dist/ only when dist/.stamp equals the
// fingerprint of the sources (every path, size and mtime), so an edited, added
// or removed source file means the sources run through tsx until the next
// build: dist/ is never older than what it claims to be.
//
//   node bin/build.mjs            build dist/ unless it is up to date
//   node bin/build.mjs --check    exit 0 when dist/ is up to date, 1 when not

import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const SOURCE_DIRS = ['actors', 'protocols', 'src'];
/** Files dist/ copies besides the source folders' (runtime/engines reads package.json). */
const TOP_FILES = ['package.json'];
/** Files that decide how the sources compile (esbuild reads tsconfig.json), fingerprinted but not copied. */
const BUILD_INPUTS = ['tsconfig.json', 'bin/build.mjs'];
const STAMP = '.stamp';

/** Every file of the source folders (and TOP_FILES), as paths relative to `root`, sorted. */
function sourceFiles(root) {
  const files = [...TOP_FILES];
  for (const dir of SOURCE_DIRS) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files.push(relative(root, join(entry.parentPath ?? entry.path, entry.name)));
    }
  }
  return files.sort();
}

/** What dist/ must have been built from: each source's and build input's path, size and mtime, hashed. */
export function fingerprint(root = REPO_ROOT) {
  const hash = createHash('sha256');
  for (const file of [...sourceFiles(root), ...BUILD_INPUTS]) {
    const stat = statSync(join(root, file));
    hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

export function distDir(root = REPO_ROOT) {
  return join(root, 'dist');
}

/** dist/ matches the sources as they are now. */
export function upToDate(root = REPO_ROOT) {
  try {
    return readFileSync(join(distDir(root), STAMP), 'utf8') === fingerprint(root);
  } catch {
    return false; // never built
  }
}

/** Relative imports stay separate files; `./x.ts` becomes `./x.js`. */
const relativeImportsAsJs = {
  name: 'relative-imports-as-js',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) =>
      args.kind === 'entry-point' ? undefined : { path: args.path.replace(/\.ts$/, '.js'), external: true },
    );
  },
};

/** Compile the sources of `root` into its dist/ (the stamp written last, from the fingerprint taken first). */
export async function build(root = REPO_ROOT) {
  const stamp = fingerprint(root);
  const files = sourceFiles(root);
  const out = distDir(root);
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    absWorkingDir: root,
    entryPoints: files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')),
    outdir: out,
    outbase: '.',
    bundle: true,
    packages: 'external',
    plugins: [relativeImportsAsJs],
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  for (const file of files.filter((file) => !file.endsWith('.ts'))) {
    mkdirSync(dirname(join(out, file)), { recursive: true });
    copyFileSync(join(root, file), join(out, file));
  }
  writeFileSync(join(out, STAMP), stamp);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--check')) {
    process.exitCode = upToDate() ? 0 : 1;
  } else if (!upToDate()) {
    const started = performance.now();
    await build();
    process.stderr.write(`agent-bridge: compiled the sources into dist/ in ${Math.round(performance.now() - started)} ms\n`);
  }
}
