// AGENT_BRIDGE_HISTORY_MIRRORS=off (or false, 0): no project replicas are
// written at all (capture, search and reads are unchanged). For machines where
// nothing may be written into project folders, and for measuring capture
// without mirrors (bench/mirror.ts).

export function mirrorsDisabled(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.AGENT_BRIDGE_HISTORY_MIRRORS?.trim().toLowerCase();
  return value === 'off' || value === 'false' || value === '0';
}
