// What record providers (OpenCode, bridge records) read from history.db,
// answered on the history worker's own connection instead of the writer
// thread's. Why it is the same answer: a provider reads only its own keys
// (its records' sources, its cursors), and it gives a unit only once none of
// its units is in flight (src/ingest/scheduler.ts), so every write to those
// keys has committed before it reads, and a read on any connection sees a
// commit once it is done (WAL). Why not ask the writer thread: a synchronous
// ask waits behind every commit queued there, so the history worker would
// block until the queue is empty, and the writer thread would then idle while
// the provider builds its unit.
// Everything else a provider sends (it writes nothing today) goes to the
// writer thread, in order.

import type { HistoryAsk, HistoryMessage } from '../../protocols/history.ts';

/** Read-only messages of the providers: pure queries of committed rows, no statement left open (src/store/records.ts). */
const PROVIDER_READS: ReadonlySet<HistoryMessage['type']> = new Set(['retained', 'retainedPage', 'retainedSources', 'cursors', 'versions']);

/** A HistoryAsk for record providers: their reads on `own` (this thread's connection), anything else on `writer`. */
export function providerAsk(own: HistoryAsk, writer: HistoryAsk): HistoryAsk {
  return (message) => (PROVIDER_READS.has(message.type) ? own(message) : writer(message));
}
