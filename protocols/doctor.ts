// What `agent-bridge doctor --json` prints: one entry per check, each ok, warn
// or fail with what was found and, unless ok, a one-line fix. The command
// exits 1 when any check fails.

export type CheckLevel = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  /** Stable identifier of the check: node, code, sqlite, fts5, home, history-db, schema, quick-check, fts-index, wal, writer-lock, service, migration, disk, root, opencode, config, dashboard-token. */
  readonly id: string;
  /** What was checked, for people: "claude root /home/me/.claude/projects". */
  readonly title: string;
  readonly level: CheckLevel;
  /** What was found, one line. */
  readonly detail: string;
  /** How to fix it, one line; null when ok. */
  readonly fix: string | null;
}

export interface DoctorReport {
  readonly home: string;
  readonly checks: readonly DoctorCheck[];
  readonly counts: Readonly<Record<CheckLevel, number>>;
}
