// The history worker's side of the writer thread (actors/writer-worker.ts).
// Two ways to ask, over one ordered channel (protocols/writer-thread.ts):
//   ask   synchronous, a HistoryAsk: the caller's thread blocks in
//         Atomics.wait until the reply is there. Everything but the batch
//         path uses it, so the code that asks stays what it was (record
//         providers' reads excepted: src/service/provider-reads.ts).
//   send  asynchronous: the capture loop sends a batch's commit (and the
//         merge step after it) and reads and parses the next batch while
//         the writer thread works. A commit moves its chunks' bytes to
//         the writer thread (commitTransfers): sent once, never again.
// Invariant: the writer thread handles requests one at a time in the order
// sent, so a reply, synchronous or not, reflects every request sent before
// it (a read asked after a sent commit sees that commit).
// A thread that ends other than through close() is lost: `onLost` hears it
// once, and every waiting and later request fails with STOPPED.

import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { HistoryError, deserializeError } from '../../protocols/errors.ts';
import { commitTransfers, type HistoryAsk, type HistoryMessage, type HistoryReplies, type HistorySend, type Timed } from '../../protocols/history.ts';
import { SIGNAL_CLOSED, SIGNAL_REPLIES, SIGNAL_SLOTS, type WriterReply, type WriterRequest } from '../../protocols/writer-thread.ts';
import { pagedRecords } from '../store/records.ts';
import { PendingReplies } from './pending-replies.ts';
import { spawnThread } from './threads.ts';

type Body = { readonly kind: 'open' } | { readonly kind: 'history'; readonly message: HistoryMessage } | { readonly kind: 'close' };

export class WriterClient {
  private readonly replies = new PendingReplies<Timed<unknown>>();
  private closing = false;
  /** Armed once the thread has opened the store: a thread that fails to open is a failed open, not a lost writer. */
  private onLost: (error: HistoryError) => void = () => undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly signal: Int32Array,
  ) {
    port.on('message', (reply: WriterReply) => this.settle(reply));
    worker.on('error', (error) => this.end(error));
    worker.on('exit', () => this.end(new HistoryError('STOPPED', 'the writer thread has ended')));
  }

  /**
   * Start the writer thread on `historyDb` (its schema already current) and
   * wait until its connection is open. Waited for asynchronously: a thread
   * that fails before it can answer (a module that does not load) is seen
   * through its 'error' and 'exit' events, and the failure is thrown here.
   */
  static async open(historyDb: string, onLost: (error: HistoryError) => void = () => undefined): Promise<WriterClient> {
    const channel = new MessageChannel();
    const shared = new SharedArrayBuffer(SIGNAL_SLOTS * Int32Array.BYTES_PER_ELEMENT);
    const worker = spawnThread('actors/writer-worker.ts', 'agent-bridge-history-writer', {
      data: { historyDb, port: channel.port2, signal: shared },
      transferList: [channel.port2],
    });
    const client = new WriterClient(worker, channel.port1, new Int32Array(shared));
    try {
      await client.dispatch({ kind: 'open' });
    } catch (error) {
      await client.close();
      throw error;
    }
    client.onLost = onLost;
    return client;
  }

  /** Synchronous: the reply to `message`, once every request sent before it was handled. */
  readonly ask: HistoryAsk = <T extends HistoryMessage>(message: T): HistoryReplies[T['type']] => {
    if (message.type === 'retained') {
      // A generation can be far larger than memory: it crosses a page at a time, as the consumer reads.
      const { source, generation } = message;
      return pagedRecords((from, limit) => this.ask({ type: 'retainedPage', source, generation, from, limit })) as unknown as HistoryReplies[T['type']];
    }
    return this.request({ kind: 'history', message }).value as HistoryReplies[T['type']];
  };

  /** Asynchronous: resolves with the reply to `message` and the actor's time, or rejects with its HistoryError. */
  readonly send: HistorySend = <T extends HistoryMessage>(message: T): Promise<Timed<HistoryReplies[T['type']]>> =>
    this.dispatch({ kind: 'history', message }) as Promise<Timed<HistoryReplies[T['type']]>>;

  /** Send `body`; its reply settles the promise. */
  private dispatch(body: Body): Promise<Timed<unknown>> {
    if (this.replies.ended !== null) return Promise.reject(this.replies.ended);
    try {
      return this.replies.wait(this.post(body));
    } catch (error) {
      return Promise.reject(error); // a message that cannot be posted (commitTransfers)
    }
  }

  /** After what was sent before: close the connection and end the thread (ended whatever the close said). */
  async close(): Promise<void> {
    this.closing = true;
    try {
      if (this.replies.ended === null) {
        const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
        this.request({ kind: 'close' });
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      }
    } finally {
      await this.worker.terminate();
      this.port.close();
      this.end(new HistoryError('STOPPED', 'the writer thread has ended'));
    }
  }

  /** Post `body` under a new id; returns the id. */
  private post(body: Body): number {
    const id = this.replies.nextId();
    const request = { id, ...body } as WriterRequest;
    const transfer = body.kind === 'history' ? commitTransfers(body.message) : [];
    try {
      this.port.postMessage(request, transfer);
    } catch (error) {
      // Node 21 and later refuse to move a buffer Node pools (Node 20 copies it); nothing moved, so all is copied.
      if (transfer.length === 0) throw error;
      this.port.postMessage(request);
    }
    return id;
  }

  /** Send `body` and block this thread until its reply; earlier asynchronous replies met on the way are settled. */
  private request(body: Body): Timed<unknown> {
    if (this.replies.ended !== null) throw this.replies.ended;
    const id = this.post(body);
    for (;;) {
      const seen = Atomics.load(this.signal, SIGNAL_REPLIES);
      const received = receiveMessageOnPort(this.port);
      if (received !== undefined) {
        const reply = received.message as WriterReply;
        if (reply.id !== id) {
          this.settle(reply);
          continue;
        }
        if (!reply.ok) throw deserializeError(reply.error);
        return { value: reply.value, ms: reply.ms };
      }
      if (Atomics.load(this.signal, SIGNAL_CLOSED) === 1) {
        throw this.end(new HistoryError('STOPPED', 'the writer thread has ended'));
      }
      // Woken by the next reply (the counter moves after each is posted) or by the thread's end.
      Atomics.wait(this.signal, SIGNAL_REPLIES, seen);
    }
  }

  private settle(reply: WriterReply): void {
    this.replies.settle(reply.ok ? { id: reply.id, ok: true, value: { value: reply.value, ms: reply.ms } } : reply);
  }

  /** The thread is gone: every request still waiting fails, and so does every later one. */
  private end(error: Error): HistoryError {
    const stopped = error instanceof HistoryError ? error : new HistoryError('STOPPED', `the writer thread failed: ${error.message}`);
    if (this.replies.end(stopped) && !this.closing) this.onLost(stopped);
    return this.replies.ended ?? stopped;
  }
}
