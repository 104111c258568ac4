// The dashboard as users run it: `agent-bridge dashboard` (or `serve`) as a
// real process on a test home, its address read from its output, and plain
// HTTP requests (node:http, so Host and Origin can be set as an attacker would).

import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { spawnCli } from './home.ts';

export interface RunningDashboard {
  readonly child: ChildProcess;
  /** http://127.0.0.1:<port>/ */
  readonly base: string;
  readonly loginUrl: string;
  readonly token: string;
  readonly port: number;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  stop(): Promise<number | null>;
}

/** Start `agent-bridge <args>` and wait for the line that carries the login URL (a line of stdout, or of stderr for serve). */
export function startDashboardProcess(args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<RunningDashboard> {
  const child = spawnCli(args, env);
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no dashboard URL within ${timeoutMs} ms; stdout: ${out}; stderr: ${err}`));
    }, timeoutMs);
    const look = (): void => {
      const match = /(http:\/\/[^\s/]+\/)login\?token=([A-Za-z0-9_-]{43})/.exec(out + err);
      if (match === null) return;
      clearTimeout(timer);
      const base = match[1] as string;
      resolve({
        child,
        base,
        loginUrl: match[0],
        token: match[2] as string,
        port: Number(new URL(base).port),
        stderr: () => err,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done(child.exitCode);
            child.once('exit', (code) => done(code));
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      look();
    });
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString('utf8');
      look();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`agent-bridge ${args.join(' ')} exited ${code} before printing its URL; stdout: ${out}; stderr: ${err}`));
    });
  });
}

export interface HttpResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
  json<T>(): T;
}

/** One request to the dashboard at `port` (the Host header defaults to 127.0.0.1:<port>). */
export function http(port: number, path: string, options: { method?: string; headers?: Record<string, string>; host?: string } = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: options.host ?? '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { Host: `127.0.0.1:${port}`, ...options.headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: <T>() => JSON.parse(body.toString('utf8')) as T });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}
