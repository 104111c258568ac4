// Why a project's replica cannot be written now. Both kinds are retried on
// their own (src/mirror/mirror-sync.ts), so fixing the cause is enough.
//   deferred  the exclusion cannot be ensured, the folder is missing, a file is busy or read-only…
//   refused   a symbolic link on the way: nothing is written through it

export interface MirrorProblem {
  readonly state: 'deferred' | 'refused';
  readonly reason: string;
  readonly path: string;
  /**
   * The project folder is not on this machine (deleted, or a session from
   * another machine): looked for again with a growing delay, since many such
   * projects would otherwise cost an idle service a stat of each every few
   * seconds. Any other problem is retried at the fixed recheck interval.
   */
  readonly absent?: true;
}

export function deferred(path: string, reason: string): MirrorProblem {
  return { state: 'deferred', reason, path };
}

export function absentFolder(path: string): MirrorProblem {
  return { state: 'deferred', reason: `the project folder ${path} does not exist on this machine`, path, absent: true };
}

export function refused(path: string, reason = `${path} is a symbolic link: nothing is written through it`): MirrorProblem {
  return { state: 'refused', reason, path };
}

export function isProblem(value: unknown): value is MirrorProblem {
  return typeof value === 'object' && value !== null && 'reason' in value && 'state' in value;
}

/** A short reason from a thrown error (its code and message). */
export function errorText(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
