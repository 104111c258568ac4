// Which generation an observed row version goes to. Generations of a
// row-shaped source key are its observed versions, in the order they were
// observed; generation 0 is the first (what the 0.29.17 ingestor wrote, so a
// migrated capture continues seamlessly).
//   - a version already retained (same fingerprint) is not written again;
//   - an unfinished copy (a legacy envelope cursor with an offset) is a
//     generation whose bytes are a whole number of chunks and a prefix of the
//     version: it is completed in place (its chunks are found identical);
//   - any other version is the next generation.

import type { HistoryAsk } from '../../protocols/history.ts';
import { isDecisionRow } from './decisions.ts';
import { ROW_CHUNK_BYTES } from './records.ts';
import { retainedFingerprint, sha256Hex } from './messages.ts';

export interface KnownVersion {
  readonly generation: number;
  readonly fingerprint: string;
  readonly raw: Uint8Array;
}

/** Identity of a decision revision: its row without the rowid copy `n`. */
export function decisionFingerprint(row: Readonly<Record<string, unknown>>): string {
  const { n: _n, ...rest } = row;
  return sha256Hex(JSON.stringify(Object.keys(rest).sort().map((key) => [key, rest[key]])));
}

/** The fingerprint of retained bytes of `source`. */
export function fingerprintOf(source: string, raw: Uint8Array): string {
  if (source.startsWith('messages:')) return retainedFingerprint(source, raw);
  if (source.startsWith('decisions:')) {
    try {
      const value: unknown = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
      if (isDecisionRow(value)) return decisionFingerprint(value);
    } catch {
      // an unfinished copy: identified by its bytes
    }
  }
  return `bytes:${sha256Hex(raw)}`;
}

/** The retained versions of `sources`, by source. */
export function retainedVersions(history: HistoryAsk, sources: readonly string[]): Map<string, KnownVersion[]> {
  const known = new Map<string, KnownVersion[]>();
  if (sources.length === 0) return known;
  for (const version of history({ type: 'versions', sources })) {
    const list = known.get(version.source) ?? [];
    list.push({ generation: version.generation, fingerprint: fingerprintOf(version.source, version.raw), raw: version.raw });
    known.set(version.source, list);
  }
  return known;
}

function startsWith(whole: Uint8Array, prefix: Uint8Array): boolean {
  if (prefix.length > whole.length) return false;
  return Buffer.compare(Buffer.from(whole.buffer, whole.byteOffset, prefix.length), Buffer.from(prefix.buffer, prefix.byteOffset, prefix.byteLength)) === 0;
}

/** The generation to write `raw` (fingerprint `fingerprint`) to, or null when it is retained already. */
export function generationFor(known: readonly KnownVersion[], fingerprint: string, raw: Uint8Array): number | null {
  if (known.some((v) => v.fingerprint === fingerprint)) return null;
  const unfinished = known.find((v) => v.raw.length > 0 && v.raw.length < raw.length && v.raw.length % ROW_CHUNK_BYTES === 0 && startsWith(raw, v.raw));
  if (unfinished !== undefined) return unfinished.generation;
  return known.length === 0 ? 0 : Math.max(...known.map((v) => v.generation)) + 1;
}
