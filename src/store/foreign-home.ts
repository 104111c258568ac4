// foreignHome (specification, "Custom bridge homes and old fixture rows"):
// records conclusively identified as test-fixture data of another bridge
// home are flagged, never hidden or changed. Conclusive means: the source
// path lies in a nested test home, a job snapshot's workdir is such a home,
// or a bridge message was sent by the recorded owner-smoke-main sender or a
// bundled e2e sender. Unknown provenance stays unmarked.

/** A `.agent-bridge-test/<name>/home` path segment (either separator). */
const TEST_HOME = /[\\/]\.agent-bridge-test[\\/][^\\/]+[\\/]home(?:[\\/]|$)/;
const FIXTURE_SENDERS = new Set(['owner-smoke-main', 'claude-e2e', 'codex-e2e', 'antigravity-e2e']);
/** Only bridge records carry sender or workdir fields; transcripts are never parsed here. */
const BRIDGE_SOURCE = /^(?:messages|archive|job-snapshot):/;
const JSON_PEEK = 1 << 20;

function parseObject(raw: Buffer): Record<string, unknown> | null {
  if (raw.length > JSON_PEEK || raw[0] !== 0x7b) return null;
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function isForeignHome(source: string, raw: Buffer): boolean {
  if (TEST_HOME.test(source)) return true;
  if (!BRIDGE_SOURCE.test(source)) return false;
  const record = parseObject(raw);
  if (record === null) return false;
  for (const sender of [record.from_name, record.from_id]) if (typeof sender === 'string' && FIXTURE_SENDERS.has(sender)) return true;
  return typeof record.workdir === 'string' && TEST_HOME.test(`${record.workdir}/`);
}
