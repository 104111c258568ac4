// The dashboard's hono app: security middleware first (headers on every
// response, then Host, Origin and credentials), then the API and the pages.

import { Hono } from 'hono';
import type { Credentials } from './auth.ts';
import { errorResponse } from './errors.ts';
import type { EventHub } from './events.ts';
import type { ReaderPool } from './reader-pool.ts';
import { apiRoutes } from './routes/api.ts';
import { loadAssets, pageRoutes, type Asset } from './routes/pages.ts';
import { guard, securityHeaders } from './security.ts';

export interface AppOptions {
  readonly credentials: Credentials;
  readonly pool: ReaderPool;
  readonly hub: EventHub;
  /** The port the server listens on (known once it listens). */
  readonly port: () => number;
  readonly assets?: Map<string, Asset>;
}

export function dashboardApp(options: AppOptions): Hono {
  const app = new Hono();
  app.use('*', securityHeaders());
  app.use('*', guard({ credentials: options.credentials, port: options.port }));
  apiRoutes(app, options.pool, options.hub);
  pageRoutes(app, options.credentials, options.assets ?? loadAssets());
  app.notFound((c) => c.text('not found', 404));
  app.onError((error, c) => errorResponse(c, error));
  return app;
}
