// Server-sent events for live pages (`GET /api/events`). While at least one
// client listens, the hub looks once a second for new records (one cheap
// query on a reader thread) and every two seconds at status, and sends at
// most one `records` and one `status` event per look, whatever happened in
// between (coalesced). A comment line every 15 s keeps idle connections
// open. Each client has a bounded queue: a client that does not read its
// events is dropped, never buffered without bound.

import type { Changes } from '../../protocols/dashboard.ts';
import type { ReaderPool } from './reader-pool.ts';
import { statusChangeKey, type DashboardStatus } from './status.ts';

export const EVENTS_TICK_MS = 1000;
export const STATUS_EVERY_TICKS = 2;
export const HEARTBEAT_MS = 15_000;
/** Bytes a client may have unread before it is dropped. */
export const CLIENT_BUFFER_BYTES = 256 * 1024;

const encoder = new TextEncoder();

interface Client {
  readonly controller: ReadableStreamDefaultController<Uint8Array>;
  closed: boolean;
}

export interface EventHubOptions {
  readonly tickMs?: number;
  readonly heartbeatMs?: number;
  readonly bufferBytes?: number;
}

export class EventHub {
  private readonly clients = new Set<Client>();
  private timer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private busy = false;
  private ticks = 0;
  private maxRecord: number | null = null;
  private statusKey = '';
  /** Clients dropped for not reading (for tests and diagnostics). */
  dropped = 0;

  constructor(
    private readonly pool: ReaderPool,
    private readonly options: EventHubOptions = {},
  ) {}

  get size(): number {
    return this.clients.size;
  }

  /** A new event stream for one client. */
  open(signal?: AbortSignal): ReadableStream<Uint8Array> {
    let client: Client | null = null;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          client = { controller, closed: false };
          this.clients.add(client);
          this.send(client, `retry: 3000\n\n`);
          if (this.maxRecord !== null) this.send(client, frame('hello', { maxRecord: this.maxRecord }));
          this.ensureRunning();
        },
        cancel: () => {
          if (client !== null) this.remove(client);
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: this.options.bufferBytes ?? CLIENT_BUFFER_BYTES }),
    );
    signal?.addEventListener('abort', () => {
      if (client !== null) this.close(client);
    });
    return stream;
  }

  private ensureRunning(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? EVENTS_TICK_MS);
    this.heartbeat = setInterval(() => this.broadcast(': ping\n\n'), this.options.heartbeatMs ?? HEARTBEAT_MS);
    void this.tick();
  }

  private stopIfIdle(): void {
    if (this.clients.size > 0) return;
    if (this.timer !== null) clearInterval(this.timer);
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.timer = null;
    this.heartbeat = null;
  }

  private async tick(): Promise<void> {
    if (this.busy || this.clients.size === 0) return;
    this.busy = true;
    try {
      const since = this.maxRecord ?? Number.MAX_SAFE_INTEGER;
      const changes: Changes = await this.pool.run('changes', since);
      if (this.maxRecord === null) {
        this.maxRecord = changes.maxRecord;
        this.broadcast(frame('hello', { maxRecord: changes.maxRecord }));
      } else if (changes.maxRecord > this.maxRecord) {
        this.maxRecord = changes.maxRecord;
        this.broadcast(frame('records', changes));
      }
      if (this.ticks++ % STATUS_EVERY_TICKS === 0) {
        const status = (await this.pool.status()) as DashboardStatus;
        const key = statusChangeKey(status);
        if (key !== this.statusKey) {
          this.statusKey = key;
          this.broadcast(frame('status', status));
        }
      }
    } catch {
      // A failed look (reader busy or restarting) is retried on the next tick.
    } finally {
      this.busy = false;
    }
  }

  private broadcast(text: string): void {
    for (const client of this.clients) this.send(client, text);
  }

  private send(client: Client, text: string): void {
    if (client.closed) return;
    try {
      client.controller.enqueue(encoder.encode(text));
    } catch {
      this.remove(client);
      return;
    }
    if ((client.controller.desiredSize ?? 0) < 0) {
      // Not reading: drop the client and what it has not read (error() discards the queue and ends the response).
      this.dropped++;
      try {
        client.controller.error(new Error('event stream dropped: the client does not read its events'));
      } catch {
        // already closed
      }
      this.remove(client);
    }
  }

  private close(client: Client): void {
    if (client.closed) return;
    try {
      client.controller.close();
    } catch {
      // already closed by the consumer
    }
    this.remove(client);
  }

  private remove(client: Client): void {
    client.closed = true;
    this.clients.delete(client);
    this.stopIfIdle();
  }

  closeAll(): void {
    for (const client of [...this.clients]) this.close(client);
    this.stopIfIdle();
  }
}

export function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
