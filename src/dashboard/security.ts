// The middleware every dashboard response passes through: security headers
// on every response (errors included), then the Host, Origin and credential
// checks of auth.ts. No CORS header is ever sent.

import type { Context, MiddlewareHandler } from 'hono';
import { allowedHosts, allowedOrigins, authenticated, type Credentials } from './auth.ts';
import { errorBody } from './errors.ts';

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS: Record<string, string> = {
  'Content-Security-Policy': CSP,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), clipboard-read=()',
};

/** Security headers on every response, whatever produced it. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(HEADERS)) c.res.headers.set(name, value);
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
  };
}

function refuse(c: Context, status: 401 | 403, code: string, message: string): Response {
  const html = (c.req.header('accept') ?? '').includes('text/html');
  if (html) {
    return c.html(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>agent-bridge history</title></head><body><main><h1>${status === 401 ? 'Sign in needed' : 'Refused'}</h1><p>${message}</p></main></body></html>`,
      status,
    );
  }
  return c.json(errorBody(code, message), status);
}

const LOGIN_HINT =
  'Open the address that <code>agent-bridge dashboard</code> (or <code>agent-bridge serve</code>) printed: it carries the token once and signs this browser in.';

/** Host, Origin and credentials, in that order (see auth.ts). `/login` checks its own token. */
export function guard(options: { readonly credentials: Credentials; readonly port: () => number }): MiddlewareHandler {
  let known = { port: -1, hosts: new Set<string>(), origins: new Set<string>() };
  return async (c, next) => {
    const port = options.port();
    if (known.port !== port) known = { port, hosts: allowedHosts(port), origins: allowedOrigins(port) };
    const host = c.req.header('host') ?? '';
    if (!known.hosts.has(host.toLowerCase())) {
      return refuse(c, 403, 'FORBIDDEN', `Host "${host.replace(/[^\x20-\x7e]/g, '?').slice(0, 100).replace(/[<>&"]/g, '?')}" is not this dashboard (it answers on 127.0.0.1, localhost or [::1] port ${port} only)`);
    }
    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD') {
      const origin = c.req.header('origin');
      if (origin === undefined || !known.origins.has(origin.toLowerCase())) return refuse(c, 403, 'FORBIDDEN', 'cross-origin request refused');
    }
    if (c.req.header('sec-fetch-site') === 'cross-site' && c.req.header('sec-fetch-mode') !== 'navigate') {
      return refuse(c, 403, 'FORBIDDEN', 'cross-site request refused');
    }
    if (c.req.path === '/login') return next();
    const headers: { cookie?: string; authorization?: string } = {};
    const cookie = c.req.header('cookie');
    const authorization = c.req.header('authorization');
    if (cookie !== undefined) headers.cookie = cookie;
    if (authorization !== undefined) headers.authorization = authorization;
    if (!authenticated(options.credentials, headers)) return refuse(c, 401, 'UNAUTHORIZED', LOGIN_HINT);
    return next();
  };
}
