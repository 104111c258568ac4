// The writer thread: owns history.db's writable connection while capture
// runs, so that SQLite's work (a batch's transaction, the FTS5 merge steps
// between batches) runs beside the history worker's reading, parsing and
// bookkeeping instead of taking turns with it on one thread. It runs the same
// history actor the worker ran before, one request at a time, in the order
// the requests were sent (protocols/writer-thread.ts): a request's reply
// reflects every request sent before it.

import { performance } from 'node:perf_hooks';
import { workerData } from 'node:worker_threads';
import { HistoryError, serializeError } from '../protocols/errors.ts';
import { commitTransfers } from '../protocols/history.ts';
import { SIGNAL_CLOSED, SIGNAL_REPLIES, type WriterReply, type WriterRequest, type WriterThreadData } from '../protocols/writer-thread.ts';
import { openWriter } from '../src/store/open.ts';
import { HistoryActor } from './history-actor.ts';

/**
 * The page cache of capture's connection, in KiB. Capture appends (records,
 * documents, index segments by rowid) and reads little back, so a small cache
 * costs it nothing, and this thread's own heap and malloc arena are what the
 * process pays for it: on a 1 GiB capture in 9,879 sources (compiled),
 * 32 MiB peaked at 316–320 MiB in 130.7–135.0 s, 16 MiB at 301.6 MiB in
 * 128.5 s, 8 MiB at 294.4 MiB in 127.5 s.
 */
const CAPTURE_CACHE_KIB = 8192;

/**
 * The WAL size at which capture's own commits checkpoint: a fallback. The
 * history worker checkpoints as capture goes (src/store/checkpointer.ts), so
 * a commit that reaches this finds little left to copy.
 */
const CAPTURE_FALLBACK_WAL_BYTES = 64 * 1024 * 1024;

const data = workerData as WriterThreadData;
const signal = new Int32Array(data.signal);
const port = data.port;
let actor: HistoryActor | null = null;

/**
 * Post the reply, then move the counter a synchronous caller waits on.
 * `done`: buffers this thread has finished with, moved back with the reply.
 */
function reply(message: WriterReply, done: readonly ArrayBuffer[] = []): void {
  port.postMessage(message, done);
  Atomics.add(signal, SIGNAL_REPLIES, 1);
  Atomics.notify(signal, SIGNAL_REPLIES);
}

function opened(): HistoryActor {
  if (actor === null) throw new HistoryError('STOPPED', 'the writer thread has no open connection');
  return actor;
}

async function handle(request: WriterRequest): Promise<void> {
  try {
    switch (request.kind) {
      case 'open':
        actor ??= new HistoryActor(openWriter(data.historyDb, { cacheKiB: CAPTURE_CACHE_KIB, checkpointWalBytes: CAPTURE_FALLBACK_WAL_BYTES }));
        reply({ id: request.id, ok: true, value: null, ms: 0 });
        return;
      case 'history': {
        const started = performance.now();
        const value = opened().handle(request.message);
        // A commit's chunk bytes and texts go back to the history worker, which drops them. V8 frees an
        // ArrayBuffer's memory only when it collects the object, and this thread, which makes few objects
        // of its own, collects seldom: kept here, committed chunks took its external memory to 29 MiB on a
        // 1 GiB capture (6 MiB when moved back). The history worker collects every few tens of milliseconds.
        reply({ id: request.id, ok: true, value, ms: performance.now() - started }, commitTransfers(request.message));
        return;
      }
      case 'close':
        await actor?.stop();
        actor = null;
        reply({ id: request.id, ok: true, value: null, ms: 0 });
        port.close();
        return;
    }
  } catch (error) {
    reply({ id: request.id, ok: false, error: serializeError(error) });
  }
}

// Requests are handled in order: each waits for the one before it (only `close` awaits anything).
let previous: Promise<void> = Promise.resolve();
port.on('message', (request: WriterRequest) => {
  previous = previous.then(() => handle(request));
});

// However the thread ends (an uncaught error included), a caller blocked on a synchronous reply wakes and sees it
// closed. Not after terminate(), which runs no exit handler: only close() terminates it, and never during an ask.
process.on('exit', () => {
  Atomics.store(signal, SIGNAL_CLOSED, 1);
  Atomics.add(signal, SIGNAL_REPLIES, 1);
  Atomics.notify(signal, SIGNAL_REPLIES);
});
