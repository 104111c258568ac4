// How a failure reading an OpenCode database is reported and retried:
//   busy    locked by a writer, changing while copied, or a hot journal only
//           OpenCode may roll back: retried after a cooldown (serve) or left
//           for the next run (once), with a status entry meanwhile;
//   broken  corrupt, not a database, unreadable, or lacking a required table:
//           a status entry with the path and reason, retried when the file
//           changes. Capture of every other source goes on either way.

import { HistoryError } from '../../../protocols/errors.ts';
import type { SourceProblem } from '../../../protocols/service.ts';

export interface Failure {
  readonly problem: SourceProblem;
  readonly busy: boolean;
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function describeFailure(path: string, error: unknown): Failure {
  if (error instanceof HistoryError && (error.code === 'SOURCE_BUSY' || error.code === 'SOURCE_SCHEMA')) {
    return { problem: { path, code: error.code, message: error.message }, busy: error.code === 'SOURCE_BUSY' };
  }
  const code = codeOf(error);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || code.startsWith('SQLITE_READONLY')) {
    return { problem: { path, code: 'SOURCE_BUSY', message: `OpenCode database is locked (${code}: ${messageOf(error)}); retrying later` }, busy: true };
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return { problem: { path, code: 'SOURCE_UNREADABLE', message: `OpenCode database is corrupt or not a database (${code}: ${messageOf(error)}); retried when the file changes` }, busy: false };
  }
  const reason = code === '' ? messageOf(error) : `${code}: ${messageOf(error)}`;
  return { problem: { path, code: 'SOURCE_UNREADABLE', message: `OpenCode database cannot be read (${reason}); retried when the file changes` }, busy: false };
}
