// Pages and assets. Every page is the same shell (the client renders the
// view its path names); assets are the files of ../assets, read once at
// start into memory and looked up by exact name: a request path never
// reaches the file system. The shell names them under
// `/assets/<version>/`, a digest of every asset, so a browser keeps them
// (immutable) and a page load after the first asks only for the shell and
// its data; other dashboard files give other paths. Modules import each
// other relatively, so they stay under the same version. `/login?token=`
// exchanges the token for the session cookie and redirects to a URL without
// it.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { constantTimeEqual, COOKIE_NAME, sessionCookie, type Credentials } from '../auth.ts';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface Asset {
  readonly body: Uint8Array;
  readonly type: string;
}

export function loadAssets(dir = fileURLToPath(new URL('../assets/', import.meta.url))): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type !== undefined) assets.set(name, { body: readFileSync(join(dir, name)), type });
  }
  return assets;
}

/** The path segment that versions these assets: the first 12 hex of a digest of their names and bytes. */
export function assetVersion(assets: ReadonlyMap<string, Asset>): string {
  const hash = createHash('sha256');
  for (const [name, asset] of [...assets].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`${name}\0${asset.body.byteLength}\0`).update(asset.body);
  return hash.digest('hex').slice(0, 12);
}

const IMMUTABLE = 'private, max-age=31536000, immutable';

export const PAGE_PATHS = ['/', '/search', '/conversations', '/c/*', '/sources', '/status'];

/** The page shell with its assets under `/assets/<version>/`; every module is preloaded at once, so the imports do not load one after another. */
export function shell(modules: readonly string[], version: string): string {
  const preload = modules.map((name) => `<link rel="modulepreload" href="/assets/${name}">`).join('\n');
  return SHELL.replace('<script type="module"', `${preload}\n<script type="module"`).replaceAll('"/assets/', `"/assets/${version}/`);
}

export const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>agent-bridge history</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/app.css">
<script type="module" src="/assets/app.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top" role="banner">
  <a class="brand" href="/" data-nav>agent-bridge <span>history</span></a>
  <nav aria-label="Main">
    <a href="/search" data-nav>Search</a>
    <a href="/conversations" data-nav>Conversations</a>
    <a href="/sources" data-nav>Sources</a>
    <a href="/status" data-nav>Status</a>
  </nav>
  <span class="live" id="live" role="status" aria-live="polite"></span>
</header>
<main id="main" tabindex="-1"><p class="muted">Loading…</p></main>
<footer class="foot" role="contentinfo"><span>Local, read-only view of <code id="home-path">history.db</code></span> · <kbd>/</kbd> search · <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>Enter</kbd> open · <kbd>Esc</kbd> back</footer>
</body>
</html>
`;

export function pageRoutes(app: Hono, credentials: Credentials, assets: Map<string, Asset>): void {
  app.get('/login', (c) => {
    const token = new URL(c.req.url).searchParams.get('token') ?? '';
    if (token === '' || !constantTimeEqual(token, credentials.token)) {
      return c.html('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>agent-bridge history</title></head><body><main><h1>Sign in needed</h1><p>This link does not carry the current token. Open the address the dashboard printed when it started.</p></main></body></html>', 401);
    }
    c.header('Set-Cookie', sessionCookie(credentials.session));
    return c.redirect('/', 303);
  });

  app.post('/logout', (c) => {
    c.header('Set-Cookie', `${COOKIE_NAME}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
    return c.redirect('/login', 303);
  });

  const version = assetVersion(assets);
  const page = shell([...assets.keys()].filter((name) => name.endsWith('.js') && name !== 'app.js').sort(), version);
  for (const path of PAGE_PATHS) app.get(path, (c) => c.html(page));

  // `/assets/<version>/<name>` may be kept for good; `/assets/<name>` (a link
  // from outside the shell) is asked again every time.
  app.get('/assets/*', (c) => {
    const rest = new URL(c.req.url).pathname.slice('/assets/'.length);
    const versioned = rest.startsWith(`${version}/`);
    const asset = assets.get(versioned ? rest.slice(version.length + 1) : rest);
    if (asset === undefined) return c.text('not found', 404);
    return new Response(asset.body, { headers: { 'Content-Type': asset.type, 'Cache-Control': versioned ? IMMUTABLE : 'no-cache' } });
  });
}
