// Who may talk to the dashboard. Every request, pages and assets included,
// passes, in order:
//   1. Host: a loopback name with the bound port (DNS-rebinding defence), else 403;
//   2. Origin: anything but GET/HEAD must come from the dashboard's own origin,
//      and a cross-site fetch (Sec-Fetch-Site) is refused, else 403;
//   3. credentials: the session cookie (from the token URL, HttpOnly,
//      SameSite=Strict) or `Authorization: Bearer <token>`, compared in
//      constant time, else 401.
// The token never appears in a response; the cookie holds a value derived
// from it (HMAC), so the cookie alone does not reveal the token.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const COOKIE_NAME = 'abh_session';

export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('agent-bridge history dashboard session v1').digest('base64url');
}

/** Equal strings, in time independent of where they differ (both are hashed first, so lengths do not leak either). */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

/** The Host values a browser sends for this server: loopback names with the port. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

export function allowedOrigins(port: number): Set<string> {
  return new Set([...allowedHosts(port)].map((host) => `http://${host}`));
}

export function cookieOf(header: string | undefined, name: string): string | null {
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export function bearerOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match === null ? null : (match[1] as string);
}

export interface Credentials {
  readonly token: string;
  readonly session: string;
}

export function authenticated(credentials: Credentials, headers: { cookie?: string; authorization?: string }): boolean {
  const bearer = bearerOf(headers.authorization);
  if (bearer !== null) return constantTimeEqual(bearer, credentials.token);
  const cookie = cookieOf(headers.cookie, COOKIE_NAME);
  return cookie !== null && constantTimeEqual(cookie, credentials.session);
}

export function sessionCookie(session: string): string {
  return `${COOKIE_NAME}=${session}; Path=/; HttpOnly; SameSite=Strict`;
}
