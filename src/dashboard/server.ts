// Starting and stopping the dashboard: loopback address check, the token,
// the reader pool, the hono app on @hono/node-server. Used by
// `agent-bridge dashboard` and, unless switched off, `agent-bridge serve`.

import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { HistoryError } from '../../protocols/errors.ts';
import { resolvePaths } from '../config/paths.ts';
import { sessionValue } from './auth.ts';
import { dashboardApp } from './app.ts';
import { EventHub, type EventHubOptions } from './events.ts';
import { DEFAULT_HOST, DEFAULT_PORT, loopbackAddress } from './host.ts';
import { ReaderPool } from './reader-pool.ts';
import { ensureToken } from './token.ts';

export interface DashboardOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly readers?: number;
  readonly events?: EventHubOptions;
}

export interface Dashboard {
  /** The dashboard's address, without credentials. */
  readonly url: string;
  /** The address to open once: it carries the token, which the server exchanges for a session cookie. */
  readonly loginUrl: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

export async function startDashboard(options: DashboardOptions = {}): Promise<Dashboard> {
  const address = loopbackAddress(options.host ?? DEFAULT_HOST);
  const env = options.env ?? process.env;
  const paths = resolvePaths(env);
  const token = ensureToken(paths.bridgeHome);
  const pool = new ReaderPool({ ...env }, options.readers ?? 2);
  const hub = new EventHub(pool, options.events);
  let port = options.port ?? DEFAULT_PORT;
  const app = dashboardApp({ credentials: { token, session: sessionValue(token) }, pool, hub, port: () => port });
  const server = createAdaptorServer({ fetch: app.fetch });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address.listen, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await pool.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new HistoryError('BAD_INPUT', `port ${port} on ${address.urlHost} is in use; pass --port N (or --port 0 for any free port)`);
    throw new HistoryError('STORE_IO', `cannot listen on ${address.urlHost}:${port}: ${(error as Error).message}`);
  }
  port = (server.address() as AddressInfo).port;
  pool.warm();
  const url = `http://${address.urlHost}:${port}/`;
  return {
    url,
    loginUrl: `${url}login?token=${token}`,
    port,
    token,
    async close() {
      hub.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await pool.close();
    },
  };
}
