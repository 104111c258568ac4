// The ingestion switch (specification, "Disable ingestion"): false or 0 in
// AGENT_BRIDGE_HISTORY_INGEST keeps the worker from starting. A module of its
// own so that `health` and `status` read it without loading the settings'
// schemas (zod).

export const INGEST_ENV = 'AGENT_BRIDGE_HISTORY_INGEST';

export function ingestEnvDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[INGEST_ENV]?.trim().toLowerCase();
  return value === 'false' || value === '0';
}
