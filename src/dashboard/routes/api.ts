// The JSON API. search_history and get_conversation take the MCP tools'
// inputs (mapped from the query string by query.ts) and return their
// outputs unchanged; the other routes are the dashboard's own reads. Every
// read runs on a reader thread of the pool.

import type { Context, Hono } from 'hono';
import { HistoryError } from '../../../protocols/errors.ts';
import type { ReaderPool } from '../reader-pool.ts';
import { badInput, errorResponse, notFound } from '../errors.ts';
import type { EventHub } from '../events.ts';
import { queryInput, searchInput, segmentsAfter } from '../query.ts';

function rawPath(c: Context): string {
  return new URL(c.req.url).pathname;
}

function url(c: Context): URL {
  return new URL(c.req.url);
}

/** A JSON response whose body `work` gets as text from a reader thread (made there: the main thread neither clones nor stringifies the value). */
async function json(c: Context, work: () => Promise<string>): Promise<Response> {
  try {
    const started = performance.now();
    const body = await work();
    // How long the reader thread took, hop included (browsers show it; bench/dashboard.ts reports it).
    const timing = `read;dur=${(performance.now() - started).toFixed(2)}`;
    return c.body(body, 200, { 'Content-Type': 'application/json', 'Server-Timing': timing });
  } catch (error) {
    return errorResponse(c, error);
  }
}

/** A safe download name: the file's base name in printable ASCII, plus the generation. */
export function downloadName(path: string, generation: number): string {
  const base = path.split(/[\\/]/).filter((s) => s !== '').at(-1) ?? 'source';
  const ascii = base.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120) || 'source';
  return `${ascii}.generation-${generation}`;
}

export function apiRoutes(app: Hono, pool: ReaderPool, hub: EventHub): void {
  app.get('/api/search', (c) => json(c, () => pool.runJson('search', searchInput(url(c)))));

  app.get('/api/conversations', (c) =>
    json(c, () =>
      pool.runJson(
        'conversations',
        queryInput(url(c), { agent: ['agent', 'string'], project: ['project', 'string'], since: ['since', 'instant'], until: ['until', 'instant'], after: ['after', 'string'], limit: ['limit', 'number'] }),
      ),
    ),
  );

  app.get('/api/conversations/*', (c) =>
    json(c, async () => {
      const segments = segmentsAfter(rawPath(c), '/api/conversations/') ?? [];
      const [id, view, ...rest] = segments;
      if (id === undefined || id === '' || rest.length > 0) throw notFound('no such route');
      if (view === 'family') return pool.runJson('family', id);
      if (view !== undefined) throw notFound('no such route');
      const query = url(c);
      if (query.searchParams.has('before')) {
        const input = queryInput(query, { before: ['before', 'number'], limit: ['limit', 'number'] });
        return pool.runJson('conversationBefore', { id, ...input });
      }
      const input = queryInput(query, { after: ['after', 'number'], limit: ['limit', 'number'] });
      return pool.runJson('getConversation', { id, ...input });
    }),
  );

  app.get('/api/history/*', (c) =>
    json(c, async () => {
      const segments = segmentsAfter(rawPath(c), '/api/history/') ?? [];
      if (segments.length !== 1 || segments[0] === '') throw notFound('no such route');
      queryInput(url(c), {});
      const id = segments[0] as string;
      const document = await pool.runJson('document', id);
      if (document === 'null') throw notFound(`no history document ${JSON.stringify(id.slice(0, 200))}`);
      return document;
    }),
  );

  app.get('/api/sources', (c) => json(c, () => pool.runJson('sources', queryInput(url(c), { after: ['after', 'string'], limit: ['limit', 'number'] }))));

  app.get('/api/sources/*', async (c) => {
    try {
      const segments = segmentsAfter(rawPath(c), '/api/sources/') ?? [];
      if (segments.length !== 2 || segments[1] !== 'raw' || segments[0] === '') throw notFound('no such route');
      const source = segments[0] as string;
      const input = queryInput(url(c), { generation: ['generation', 'number'] });
      const info = await pool.run('rawSource', source);
      if (info === null) throw notFound(`no captured source ${JSON.stringify(source.slice(0, 200))}`);
      const wanted = input.generation;
      if (wanted !== undefined && (typeof wanted !== 'number' || !Number.isSafeInteger(wanted) || wanted < 0)) throw badInput('generation: must be an integer >= 0');
      const generation = (wanted as number | undefined) ?? (info.generations.at(-1) as number);
      if (!info.generations.includes(generation)) throw notFound(`source has no generation ${generation} (it has ${info.generations.join(', ')})`);
      const first = await pool.run('rawPage', source, generation, 0);
      let next = first.next;
      // Each pull reads one page (about 1 MiB) on a reader thread; the socket's pace decides how fast.
      const body = new ReadableStream<Uint8Array>(
        {
          start(controller) {
            controller.enqueue(first.bytes);
            if (next === null) controller.close();
          },
          async pull(controller) {
            if (next === null) return;
            const page = await pool.run('rawPage', source, generation, next as number);
            controller.enqueue(page.bytes);
            next = page.next;
            if (next === null) controller.close();
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(body, {
        headers: {
          'Content-Type': 'application/octet-stream',
          'Content-Disposition': `attachment; filename="${downloadName(info.path, generation)}"`,
          'X-Source-Generation': String(generation),
        },
      });
    } catch (error) {
      return errorResponse(c, error);
    }
  });

  app.get('/api/status', (c) => json(c, () => pool.statusJson()));

  app.get('/api/activity', (c) =>
    json(c, () => {
      queryInput(url(c), {});
      return pool.runJson('activity', Date.now());
    }),
  );

  app.get('/api/events', (c) => {
    const stream = hub.open(c.req.raw.signal);
    return new Response(stream, { headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' } });
  });

  app.all('/api/*', (c) => {
    const known = c.req.method === 'GET' || c.req.method === 'HEAD';
    return errorResponse(c, known ? notFound('no such route') : new HistoryError('BAD_INPUT', `method ${c.req.method} is not allowed here (the API only reads)`));
  });
}
