// Bridge message envelopes as retained records.
//
// A message row is one (message, recipient): direct, sibling, broadcast (one
// row per recipient, same id), job report, quiet observer copy, decision
// notice. Its retained bytes are the row as JSON with the envelope's
// recipient, exactly as the 0.29.17 ingestor wrote them (`{...row, recipient}`
// in column order; an archive.db row has its two archive columns too, and an
// archive row captured by rowid has its rowid first as `n`).
//
// A row changes (read_at set, recipient claimed): every observed version is
// kept. Versions of one envelope key are generations of its source key; a
// version is identified by its message columns with the key's recipient
// (fingerprint), so an archived copy of a version already retained, or the
// same row read again, is not a new version.

import { createHash } from 'node:crypto';
import type { Agent } from '../../protocols/records.ts';
import type { RowDocument } from '../../protocols/rows.ts';
import { agentOf, jobNameIn } from '../keys/bridge.ts';

export interface MessageRow {
  readonly id: string;
  readonly recipient: string;
  readonly from_id: string;
  readonly from_name: string;
  readonly from_agent: string;
  readonly to_target: string;
  readonly conversation_id: string;
  readonly reply_to: string | null;
  readonly hop: number;
  readonly body: string;
  readonly created_at: number;
  readonly read_at: number | null;
  readonly [column: string]: unknown;
}

/** The columns that make a version of a message (everything but bookkeeping: n, archive_reason, archived_at). */
const CONTENT = ['id', 'from_id', 'from_name', 'from_agent', 'to_target', 'conversation_id', 'reply_to', 'hop', 'body', 'created_at', 'read_at'] as const;

export function isMessageRow(value: unknown): value is MessageRow {
  const row = value as Partial<MessageRow> | null;
  return row !== null && typeof row === 'object' && typeof row.id === 'string' && typeof row.recipient === 'string' && typeof row.conversation_id === 'string' && typeof row.body === 'string';
}

/** The retained bytes of an envelope: the row with the envelope's recipient. */
export function envelopeRaw(row: Readonly<Record<string, unknown>>, recipient: string): Buffer {
  return Buffer.from(JSON.stringify({ ...row, recipient }), 'utf8');
}

/** The retained bytes of a row as read (decisions and archive rows by rowid: `n` first). */
export function rowRaw(row: Readonly<Record<string, unknown>>): Buffer {
  return Buffer.from(JSON.stringify(row), 'utf8');
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Identity of a message version under the envelope key of `recipient`. */
export function messageFingerprint(row: Readonly<Record<string, unknown>>, recipient: string): string {
  return sha256Hex(JSON.stringify([recipient, ...CONTENT.map((column) => row[column] ?? null)]));
}

/**
 * The fingerprint of a retained version of `source` (`messages:<id>:<recipient>`),
 * or of its bytes when they are not a message row (an unfinished legacy copy).
 */
export function retainedFingerprint(source: string, raw: Uint8Array): string {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
  } catch {
    value = null;
  }
  if (isMessageRow(value)) {
    const prefix = `messages:${value.id}:`;
    if (source.startsWith(prefix)) return messageFingerprint(value, source.slice(prefix.length));
  }
  return `bytes:${sha256Hex(raw)}`;
}

/** A job report's first sentence (docs/legacy-bridge-layout.md §2, DLG): "Subagent <job> (<agent>[, model m]) done|failed after Ns." */
const REPORT = /^Subagent ([A-Za-z0-9][A-Za-z0-9_-]*) \(([a-z][a-z0-9_-]*)(?:, model [^\r\n]*?)?\) (?:done|failed) after \d+s\./;

export interface Report {
  readonly job: string;
  readonly agent: Agent;
}

export function reportOf(body: string): Report | null {
  const match = REPORT.exec(body);
  return match === null ? null : { job: match[1] as string, agent: agentOf(match[2]) };
}

export interface MessageFacts {
  readonly kind: 'message' | 'report';
  readonly agent: Agent;
  readonly job: string | null;
  readonly session: string;
}

/**
 * Kind, agent, job and session of a message's document. A report sets job and
 * agent from its sentence; otherwise the job is the one the sender, the
 * recipient or the address names (job peers are named after their job).
 */
export function messageFacts(row: MessageRow, recipient: string): MessageFacts {
  const report = reportOf(row.body);
  if (report !== null) return { kind: 'report', agent: report.agent, job: report.job, session: row.from_id };
  const job = jobNameIn(row.from_name) ?? jobNameIn(recipient) ?? jobNameIn(row.to_target);
  return { kind: 'message', agent: agentOf(row.from_agent), job, session: row.from_id };
}

/** The one search document of a message version (on its first chunk); `message` lets search show a broadcast once. */
export function messageDocument(row: MessageRow, recipient: string): RowDocument {
  const facts = messageFacts(row, recipient);
  return { text: row.body, offset: 0, line: 0, kind: facts.kind, agent: facts.agent, job: facts.job, session: facts.session, message: row.id };
}
