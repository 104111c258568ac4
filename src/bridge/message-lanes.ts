// The lanes that capture message rows. Each reads one bounded chunk of rows
// and offers their current versions; the batch keeps the versions that are
// not retained yet (see versions.ts) until its budget is spent.
//   envelopes  conversation_envelopes after the `durable-envelope-keys` cursor
//              (v8): each key's row from bridge.db, or archive.db once archived
//   scan       live rows by rowid after `bridge-messages` (a v6 bridge.db,
//              which has no envelope keys: a key is (id, recipient) of the row)
//   sweep      live rows again, by rowid, from the start every revisit: a row
//              read or claimed since it was captured is a new version, and a
//              row on a reused rowid (v6) is found even behind the scan cursor
//   archive    archive.db rows after `durable-archive` (rows archived before
//              their envelope key existed, or before the key was captured)

import type { HistoryAsk } from '../../protocols/history.ts';
import type { BridgeBatch } from './batch.ts';
import { agentOf, messageConversation, messagePart, messageSource } from '../keys/bridge.ts';
import { envelopeRaw, messageDocument, messageFacts, messageFingerprint, rowRaw, type MessageRow } from './messages.ts';
import type { PeerDirectory } from './peers.ts';
import type { ArchiveQueries, BridgeQueries } from './queries.ts';
import { generationFor, retainedVersions } from './versions.ts';

export interface LaneContext {
  readonly batch: BridgeBatch;
  readonly history: HistoryAsk;
  readonly directory: PeerDirectory;
  readonly resolveProject: (cwd: string) => Promise<string>;
}

/** One message version offered for capture under the envelope key (id, recipient). */
export interface MessageCandidate {
  readonly recipient: string;
  /** The row whose columns make the version (its own recipient may differ: a claimed queue key). */
  readonly row: MessageRow;
  /** The bytes to retain. */
  readonly raw: Buffer;
}

/**
 * Offer candidates in order until the batch budget is spent; null entries
 * (a key whose row is gone) are passed over. Returns how many entries were
 * handled: the cursor may move past exactly those.
 */
export async function offerMessages(ctx: LaneContext, candidates: ReadonlyArray<MessageCandidate | null>): Promise<number> {
  const sources = candidates.flatMap((c) => (c === null ? [] : [messageSource(c.row.id, c.recipient)]));
  const known = retainedVersions(ctx.history, sources);
  let handled = 0;
  for (const candidate of candidates) {
    if (candidate === null) {
      handled++;
      continue;
    }
    if (ctx.batch.exhausted) break;
    const { row, recipient, raw } = candidate;
    const source = messageSource(row.id, recipient);
    const fingerprint = messageFingerprint(row, recipient);
    const generation = generationFor([...(known.get(source) ?? []), ...ctx.batch.addedVersions(source)], fingerprint, raw);
    if (generation !== null) {
      const cwd = ctx.directory.cwdOf(row.from_name);
      const project = cwd === null ? null : await ctx.resolveProject(cwd);
      const facts = messageFacts(row, recipient);
      ctx.batch.addVersion(
        {
          source,
          generation,
          conversation: { id: messageConversation(row.conversation_id), agent: agentOf(row.from_agent), session: row.from_id, parent: null, kind: 'message', job: facts.job },
          project,
          at: row.created_at,
          part: messagePart(row.id),
          raw,
          document: messageDocument(row, recipient),
        },
        fingerprint,
      );
    }
    handled++;
  }
  return handled;
}

export interface LaneResult {
  /** The position after the last handled row (unchanged when none was). */
  readonly after: number;
  /** More rows wait: a full chunk was read, or the budget stopped the lane. */
  readonly more: boolean;
  /** Envelope keys whose row is in neither database (nothing left to retain). */
  readonly missing: number;
}

/** The row of an envelope key: exact key first (live, then archived), then another row of the id (a claimed queue key). */
function envelopeRow(live: BridgeQueries, archive: ArchiveQueries | null, id: string, recipient: string): MessageRow | undefined {
  return live.message(id, recipient, true) ?? archive?.message(id, recipient, true) ?? live.message(id, recipient, false) ?? archive?.message(id, recipient, false);
}

export async function envelopeLane(ctx: LaneContext, live: BridgeQueries, archive: ArchiveQueries | null, after: number, limit: number): Promise<LaneResult> {
  const envelopes = live.envelopesAfter(after, limit);
  let missing = 0;
  const candidates = envelopes.map((env) => {
    const row = envelopeRow(live, archive, env.message, env.recipient);
    if (row === undefined) {
      missing++;
      return null;
    }
    return { recipient: env.recipient, row, raw: envelopeRaw(row, env.recipient) };
  });
  const handled = await offerMessages(ctx, candidates);
  return { after: handled === 0 ? after : (envelopes[handled - 1] as { id: number }).id, more: envelopes.length === limit || handled < envelopes.length, missing };
}

/** Live rows by rowid, each under its own (id, recipient) key: the v6 scan and the sweep. */
export async function liveRowLane(ctx: LaneContext, live: BridgeQueries, after: number, limit: number): Promise<LaneResult> {
  const rows = live.messagesAfter(after, limit);
  const handled = await offerMessages(ctx, rows.map(({ row }) => ({ recipient: row.recipient, row, raw: envelopeRaw(row, row.recipient) })));
  return { after: handled === 0 ? after : (rows[handled - 1] as { rowid: number }).rowid, more: rows.length === limit || handled < rows.length, missing: 0 };
}

export async function archiveLane(ctx: LaneContext, archive: ArchiveQueries, after: number, limit: number): Promise<LaneResult> {
  const rows = archive.rowsAfter(after, limit);
  const handled = await offerMessages(ctx, rows.map((row) => ({ recipient: row.recipient, row, raw: rowRaw(row) })));
  return { after: handled === 0 ? after : (rows[handled - 1] as { n: number }).n, more: rows.length === limit || handled < rows.length, missing: 0 };
}
