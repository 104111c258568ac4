// The dashboard's defences, over real HTTP against `agent-bridge dashboard`
// on a captured fixture home: no credentials → 401 on every route (assets
// too), a foreign Host → 403, a cross-origin POST → 403, the token URL
// exchanged for an HttpOnly SameSite=Strict cookie and a redirect without
// it, CSP and framing headers on every response, no CORS, a non-loopback
// bind refused with exit 2, traversal in ids and asset paths refused, and a
// token file others can read refused.

import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli, spawnCli } from './helpers/home.ts';
import { bearer, http, startDashboardProcess, type RunningDashboard } from './helpers/dashboard.ts';
import { fixtureHome, homeEnv, searchTempDir, type FixtureHome } from './helpers/search-homes.ts';
import { assetVersion, loadAssets } from '../src/dashboard/routes/pages.ts';

const ROUTES = [
  '/',
  '/search?q=quokkaflux',
  '/conversations',
  '/c/claude%3Ax',
  '/sources',
  '/status',
  '/assets/app.js',
  '/assets/app.css',
  '/assets/favicon.svg',
  '/api/search?q=quokkaflux',
  '/api/conversations',
  '/api/conversations/claude%3Ax',
  '/api/conversations/claude%3Ax/family',
  '/api/history/durable%3A1%3A0',
  '/api/sources',
  '/api/sources/x/raw',
  '/api/status',
  '/api/activity',
  '/api/events',
  '/api/nothing-here',
  '/nothing-here',
];

function assertHeaders(result: { headers: Record<string, unknown> }, what: string): void {
  const csp = String(result.headers['content-security-policy'] ?? '');
  assert.match(csp, /default-src 'none'/, `${what}: CSP`);
  assert.match(csp, /script-src 'self'(;|$)/, `${what}: scripts from self only`);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/, `${what}: no inline script, no remote origin`);
  assert.match(csp, /frame-ancestors 'none'/, `${what}: frame-ancestors`);
  assert.equal(result.headers['x-frame-options'], 'DENY', `${what}: X-Frame-Options`);
  assert.equal(result.headers['x-content-type-options'], 'nosniff', `${what}: nosniff`);
  assert.equal(result.headers['access-control-allow-origin'], undefined, `${what}: no CORS`);
}

describe('dashboard security over HTTP', () => {
  let fixture: FixtureHome;
  let dash: RunningDashboard;

  before(async () => {
    fixture = await fixtureHome({ fts: true });
    dash = await startDashboardProcess(['dashboard', '--port', '0'], fixture.env);
  });
  after(async () => {
    await dash?.stop();
  });

  test('prints the token URL as its first line and keeps the token in a 0600 file', async () => {
    assert.match(dash.loginUrl, /^http:\/\/127\.0\.0\.1:\d+\/login\?token=[A-Za-z0-9_-]{43}$/);
    const mode = statSync(join(fixture.bridgeHome, 'dashboard-token')).mode & 0o777;
    assert.equal(mode, 0o600);
  });

  test('every route, pages and assets included, is 401 without credentials (with security headers)', async () => {
    for (const path of ROUTES) {
      const result = await http(dash.port, path);
      assert.equal(result.status, 401, `${path} without credentials`);
      assertHeaders(result, path);
      assert.doesNotMatch(result.body.toString('utf8'), new RegExp(dash.token), `${path}: the token is never in a response`);
    }
    const wrong = await http(dash.port, '/api/status', { headers: bearer('A'.repeat(43)) });
    assert.equal(wrong.status, 401, 'a wrong bearer token');
    const cookie = await http(dash.port, '/api/status', { headers: { Cookie: `abh_session=${dash.token}` } });
    assert.equal(cookie.status, 401, 'the token itself is not a session cookie');
  });

  test('a Host that is not loopback with this port is 403 (DNS rebinding), even with the token', async () => {
    for (const host of ['evil.example', `evil.example:${dash.port}`, '127.0.0.1', `127.0.0.1:${dash.port + 1}`, `localhost.evil.example:${dash.port}`]) {
      const result = await http(dash.port, '/api/status', { headers: { ...bearer(dash.token), Host: host } });
      assert.equal(result.status, 403, `Host ${host}`);
      assertHeaders(result, `Host ${host}`);
    }
    for (const host of [`localhost:${dash.port}`, `[::1]:${dash.port}`, `127.0.0.1:${dash.port}`]) {
      const result = await http(dash.port, '/api/status', { headers: { ...bearer(dash.token), Host: host } });
      assert.equal(result.status, 200, `Host ${host}`);
    }
  });

  test('a cross-origin or Origin-less POST is 403; a same-origin one passes', async () => {
    for (const origin of ['http://evil.example', `http://127.0.0.1:${dash.port + 1}`, 'null']) {
      const result = await http(dash.port, '/logout', { method: 'POST', headers: { ...bearer(dash.token), Origin: origin } });
      assert.equal(result.status, 403, `Origin ${origin}`);
      assertHeaders(result, `POST from ${origin}`);
    }
    assert.equal((await http(dash.port, '/logout', { method: 'POST', headers: bearer(dash.token) })).status, 403, 'no Origin');
    const same = await http(dash.port, '/logout', { method: 'POST', headers: { ...bearer(dash.token), Origin: `http://127.0.0.1:${dash.port}` } });
    assert.equal(same.status, 303);
    const api = await http(dash.port, '/api/search?q=x', { method: 'POST', headers: { ...bearer(dash.token), Origin: `http://127.0.0.1:${dash.port}` } });
    assert.equal(api.status, 400, 'the API only reads');
    assert.deepEqual(Object.keys(api.json<{ error: object }>().error).sort(), ['code', 'message']);
  });

  test('the token URL sets an HttpOnly SameSite=Strict cookie and redirects to a URL without the token', async () => {
    const login = await http(dash.port, `/login?token=${dash.token}`);
    assert.equal(login.status, 303);
    assert.equal(login.headers.location, '/');
    const setCookie = String(login.headers['set-cookie']);
    assert.match(setCookie, /^abh_session=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict$/);
    assert.doesNotMatch(setCookie, new RegExp(dash.token), 'the cookie does not carry the token');
    const session = setCookie.split(';')[0] as string;
    const page = await http(dash.port, '/status', { headers: { Cookie: session } });
    assert.equal(page.status, 200);
    assert.match(page.body.toString('utf8'), /<script type="module" src="\/assets\/[0-9a-f]{12}\/app\.js"><\/script>/);
    assert.doesNotMatch(page.body.toString('utf8'), /<script>|\son[a-z]+=/i, 'the shell has no inline script or handler');
    assertHeaders(page, 'the shell');
    const asset = await http(dash.port, '/assets/app.js', { headers: { Cookie: session } });
    assert.equal(asset.status, 200);
    assert.match(String(asset.headers['content-type']), /text\/javascript/);
    assert.doesNotMatch(asset.body.toString('utf8'), /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, 'no HTML sink in the client');
    const bad = await http(dash.port, '/login?token=' + 'x'.repeat(43));
    assert.equal(bad.status, 401);
    assert.equal(bad.headers['set-cookie'], undefined);
  });

  test('the shell names its assets under a version a browser may keep; another version is not served', async () => {
    const auth = bearer(dash.token);
    const shell = (await http(dash.port, '/search', { headers: auth })).body.toString('utf8');
    const version = /src="\/assets\/([0-9a-f]{12})\/app\.js"/.exec(shell)?.[1];
    assert.ok(version !== undefined, 'app.js is loaded under a version');
    const linked = [...shell.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
    assert.ok(linked.length >= 4, `the shell links its modules, style sheet and icon: ${linked.join(' ')}`);
    for (const path of linked) {
      assert.ok(path.startsWith(`/assets/${version}/`), `${path} is under the version`);
      const kept = await http(dash.port, path, { headers: auth });
      assert.equal(kept.status, 200, path);
      assert.match(String(kept.headers['cache-control']), /immutable/, `${path} may be kept`);
      assertHeaders(kept, path);
      const plain = await http(dash.port, path.replace(`/${version}/`, '/'), { headers: auth });
      assert.deepEqual(plain.body, kept.body, `${path}: the same file as without the version`);
      assert.equal(plain.headers['cache-control'], 'no-cache', `${path} without the version is asked again every time`);
    }
    const other = version === '000000000000' ? '111111111111' : '000000000000';
    assert.equal((await http(dash.port, `/assets/${other}/app.js`, { headers: auth })).status, 404, 'another version is not served');
    assert.equal((await http(dash.port, `/assets/${version}/app.js`)).status, 401, 'a versioned asset needs credentials too');
  });

  test('traversal in asset paths, conversation ids, document ids and source ids reads nothing from disk', async () => {
    const auth = bearer(dash.token);
    for (const path of ['/assets/../../package.json', '/assets/..%2F..%2Fpackage.json', '/assets/%2e%2e/app.ts', '/assets/app.js%00.css', '/assets/../routes/pages.ts']) {
      const result = await http(dash.port, path, { headers: auth });
      assert.ok(result.status === 404 || result.status === 400, `${path}: ${result.status}`);
      assert.doesNotMatch(result.body.toString('utf8'), /"name": "agent-bridge-history"|import /, `${path} serves no file`);
    }
    const passwd = encodeURIComponent('../../../../../etc/passwd');
    const raw = await http(dash.port, `/api/sources/${passwd}/raw`, { headers: auth });
    assert.equal(raw.status, 404);
    assert.equal(raw.json<{ error: { code: string } }>().error.code, 'NOT_FOUND');
    const conversation = await http(dash.port, `/api/conversations/${passwd}`, { headers: auth });
    assert.equal(conversation.status, 200);
    assert.deepEqual(conversation.json(), { conversation: null, records: [], next: null });
    const document = await http(dash.port, `/api/history/${passwd}`, { headers: auth });
    assert.equal(document.status, 404);
    const malformed = await http(dash.port, '/api/history/%E0%A4%A', { headers: auth });
    assert.equal(malformed.status, 400);
  });

  test('--host with a non-loopback address is refused with exit 2 and a reason', async () => {
    for (const host of ['0.0.0.0', '192.168.1.20', '::', 'example.com']) {
      const result = await cli(['dashboard', '--host', host, '--port', '0'], fixture.env);
      assert.equal(result.code, 2, `--host ${host}`);
      assert.match(result.stderr, /loopback only/);
      assert.match(result.stderr, /never exported to other machines/);
      assert.equal(result.stdout.length, 0, 'no URL printed');
    }
  });

  test('a token file other users can read is refused with the fix', async () => {
    const bridgeHome = searchTempDir('token');
    mkdirSync(bridgeHome, { recursive: true });
    const path = join(bridgeHome, 'dashboard-token');
    writeFileSync(path, `${'a'.repeat(43)}\n`);
    chmodSync(path, 0o644);
    const result = await cli(['dashboard', '--port', '0'], homeEnv(fixture.home, bridgeHome));
    assert.equal(result.code, 1);
    assert.match(result.stderr, /can be read by other users \(mode 644\); run: chmod 600/);
  });

  test('serve hosts no dashboard when config.json switches it off, or with --no-dashboard', async () => {
    for (const [config, args] of [[{ history: { dashboard: { enabled: false } } }, ['serve']], [{}, ['serve', '--no-dashboard']]] as const) {
      const bridgeHome = searchTempDir('serve');
      writeFileSync(join(bridgeHome, 'config.json'), JSON.stringify(config));
      const child = spawnCli(args, { ...homeEnv(searchTempDir('empty-home'), bridgeHome) });
      let err = '';
      child.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 60_000);
        child.stderr?.on('data', () => {
          if (err.includes('Ctrl-C stops')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      assert.doesNotMatch(err, /dashboard|token=/, `${args.join(' ')} with ${JSON.stringify(config)}`);
    }
  });
});

describe('asset version', () => {
  test('changes when any asset byte or name changes, and only then', () => {
    const assets = loadAssets();
    const version = assetVersion(assets);
    assert.match(version, /^[0-9a-f]{12}$/);
    assert.equal(assetVersion(new Map([...assets].reverse())), version, 'the order assets were read in does not matter');
    for (const name of ['app.js', 'app.css', 'favicon.svg']) {
      const asset = assets.get(name);
      assert.ok(asset, name);
      const body = Uint8Array.from(asset.body);
      body[body.length - 1] = (body[body.length - 1] as number) ^ 1;
      assert.notEqual(assetVersion(new Map(assets).set(name, { ...asset, body })), version, `${name} with one byte changed`);
    }
    const renamed = new Map(assets);
    const css = renamed.get('app.css');
    assert.ok(css);
    renamed.delete('app.css');
    renamed.set('app2.css', css);
    assert.notEqual(assetVersion(renamed), version, 'a renamed asset');
  });
});
