// A stand-in for the agent-bridge broker's message loop, on the calling
// (main) thread: it sends messages the way the 0.29.17 broker stores them
// (an INSERT into bridge.db `messages`, whose triggers fill history_pending
// and conversation_envelopes), lets the recipient acknowledge on a later turn
// of the event loop (an UPDATE of read_at), and measures send → ack latency.
// Every tenth message is a broadcast (one row per recipient). Used by
// test/broker-load.test.ts (generous bound) and bench/broker-load.ts (figures).

import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LoopOptions {
  readonly bridgeDb: string;
  readonly messages: number;
  /** Pause between messages. */
  readonly intervalMs: number;
  /** Called between messages; the loop stops early when it returns false. */
  readonly keepGoing?: () => boolean;
}

export interface LoopResult {
  /** send → ack latency of each message, ms. */
  readonly latencies: number[];
  readonly failures: number;
  readonly errors: string[];
  readonly ids: string[];
  /** Event loop delay over the run (ms). */
  readonly loopDelay: { p99: number; max: number };
}

const PEERS = [
  { id: randomUUID(), name: 'claude-load', agent: 'claude' },
  { id: randomUUID(), name: 'codex-load', agent: 'codex' },
  { id: randomUUID(), name: 'opencode-load', agent: 'opencode' },
];

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

export async function runBrokerLoop(options: LoopOptions): Promise<LoopResult> {
  const db = new Database(options.bridgeDb);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 3000');
  const insert = db.prepare(
    'INSERT INTO messages (id, recipient, from_id, from_name, from_agent, to_target, conversation_id, reply_to, hop, body, created_at, read_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, ?, NULL)',
  );
  const ack = db.prepare('UPDATE messages SET read_at = ? WHERE id = ? AND recipient = ?');
  const send = db.transaction((id: string, from: (typeof PEERS)[number], recipients: string[], to: string, conversation: string, body: string) => {
    for (const recipient of recipients) insert.run(id, recipient, from.id, from.name, from.agent, to, conversation, body, Date.now());
  });
  const latencies: number[] = [];
  const errors: string[] = [];
  const ids: string[] = [];
  let failures = 0;
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const conversation = randomUUID();
  try {
    for (let i = 0; i < options.messages; i++) {
      if (options.keepGoing !== undefined && !options.keepGoing()) break;
      const from = PEERS[i % PEERS.length] as (typeof PEERS)[number];
      const others = PEERS.filter((p) => p !== from).map((p) => p.name);
      const broadcast = i % 10 === 9;
      const recipients = broadcast ? others : [others[i % others.length] as string];
      const id = randomUUID();
      const body = `load message ${i} brokerloadkeyword ${'lorem ipsum '.repeat(20 + (i % 50))}`;
      const start = performance.now();
      try {
        send(id, from, recipients, broadcast ? '*' : (recipients[0] as string), conversation, body);
        // The recipient acknowledges on a later turn of the event loop, as a peer's ack request would arrive.
        await new Promise<void>((resolve) => setImmediate(resolve));
        for (const recipient of recipients) ack.run(Date.now(), id, recipient);
        latencies.push(performance.now() - start);
        ids.push(id);
      } catch (error) {
        failures++;
        if (errors.length < 5) errors.push((error as Error).message);
      }
      await sleep(options.intervalMs);
    }
  } finally {
    histogram.disable();
    db.close();
  }
  return { latencies, failures, errors, ids, loopDelay: { p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 } };
}
