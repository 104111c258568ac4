// The floor for bench/dashboard.ts: node:http in a process of its own, each
// /search?q=... answered by a reader thread over the dashboard's wire
// (src/service/reader-thread.ts, JSON text made in the thread), with no
// hono, no authentication and no security headers. GET /api/search minus
// this is what the dashboard's own HTTP layer costs; this minus the reader
// called directly is what any HTTP server with a thread hop costs here.
//
//   node --import tsx bench/lib/bare-search-server.ts   (prints "port N")

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { searchInput } from '../../src/dashboard/query.ts';
import { ReaderThread } from '../../src/service/reader-thread.ts';

const thread = new ReaderThread(process.env, 'bare-search-reader');
const server = createServer((request, response) => {
  let input: Record<string, unknown>;
  try {
    input = searchInput(new URL(request.url ?? '/', 'http://127.0.0.1'));
  } catch (error) {
    response.writeHead(400).end(String(error));
    return;
  }
  thread.callJson('search', input).then(
    (body) => response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body),
    (error: unknown) => response.writeHead(500).end(String(error)),
  );
});
// The first search opens the store, as the dashboard's warm() does before it is measured.
await thread.call('search', { query: 'warm' });
server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => {
  server.close();
  void thread.stop().then(() => process.exit(0));
});
