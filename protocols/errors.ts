// The error catalogue. Every error that crosses a thread or process boundary
// is a plain, structured-clone-safe object with a stable code; nothing crosses
// as a bare string. `classify` decides what the scheduler does with it.

export const ERROR_CODES = [
  // Store
  'SCHEMA_TOO_NEW', // history.db was written by a newer release; refuse, never overwrite
  'STORE_BUSY', // SQLITE_BUSY / SQLITE_LOCKED: defer and retry the batch
  'STORE_IO', // IO error, cannot open: retry later, report
  'STORE_FULL', // no space left for history.db (or the migration's files): wait, retry, resume by itself when space returns
  'STORE_CORRUPT', // a database file is damaged (bad pages, truncated, not a database): history.db is salvaged by `agent-bridge recover`
  'APPEND_ONLY', // an attempt to change a retained record (a bug; fail closed)
  'VERIFY_FAILED', // captured bytes disagree with what the store holds
  // Writer election
  'WRITER_LOCKED', // another live process is the writer
  // Sources
  'SOURCE_UNREADABLE', // EACCES / EPERM / ELOOP on a source file
  'SOURCE_GONE', // the file no longer exists: its captured bytes stay retained
  'SOURCE_REFUSED', // a path outside its root or through a symlink
  'SOURCE_BUSY', // a provider database (OpenCode) is locked or changing: retried later
  'SOURCE_SCHEMA', // a provider database lacks a table or column capture needs
  // Configuration and input
  'CONFIG_INVALID',
  'BAD_INPUT',
  // Lifecycle
  'STOPPED',
  'DISABLED',
  'NOT_IMPLEMENTED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** What the receiver should do about an error. */
export type ErrorClass = 'retry' | 'cooldown' | 'fatal';

export interface HistoryErrorShape {
  readonly name: 'HistoryError';
  readonly code: ErrorCode;
  readonly message: string;
  /** The step that failed, lower case ("read source", "commit batch"). */
  readonly step?: string;
  readonly path?: string;
  readonly cause?: string;
}

export class HistoryError extends Error {
  override readonly name = 'HistoryError' as const;
  readonly code: ErrorCode;
  readonly step?: string;
  readonly path?: string;
  constructor(code: ErrorCode, message: string, extra: { step?: string; path?: string; cause?: unknown } = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.code = code;
    if (extra.step !== undefined) this.step = extra.step;
    if (extra.path !== undefined) this.path = extra.path;
  }
}

/** Plain-object form for postMessage (protocols/thread-calls.ts) and JSON. */
export function serializeError(error: unknown): HistoryErrorShape {
  const e = toHistoryError(error);
  const shape: { -readonly [K in keyof HistoryErrorShape]: HistoryErrorShape[K] } = {
    name: 'HistoryError',
    code: e.code,
    message: e.message,
  };
  if (e.step !== undefined) shape.step = e.step;
  if (e.path !== undefined) shape.path = e.path;
  if (e.cause !== undefined) shape.cause = e.cause instanceof Error ? e.cause.message : String(e.cause);
  return shape;
}

export function deserializeError(shape: HistoryErrorShape): HistoryError {
  const extra: { step?: string; path?: string; cause?: unknown } = {};
  if (shape.step !== undefined) extra.step = shape.step;
  if (shape.path !== undefined) extra.path = shape.path;
  if (shape.cause !== undefined) extra.cause = shape.cause;
  return new HistoryError(shape.code, shape.message, extra);
}

const SQLITE_BUSY = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_LOCKED_SHAREDCACHE']);
const TRANSIENT_ENV = new Set(['EBUSY', 'EAGAIN', 'EMFILE', 'ENFILE', 'EIO', 'ETIMEDOUT']);

/** Wrap anything thrown into a HistoryError, keeping the original as cause. */
export function toHistoryError(error: unknown, step?: string): HistoryError {
  if (error instanceof HistoryError) return error;
  const extra: { step?: string; cause?: unknown; path?: string } = { cause: error };
  if (step !== undefined) extra.step = step;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const path = (error as { path?: unknown } | null)?.path;
  if (typeof path === 'string') extra.path = path;
  if (typeof code === 'string') {
    if (SQLITE_BUSY.has(code)) return new HistoryError('STORE_BUSY', message, extra);
    if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return new HistoryError('STORE_CORRUPT', message, extra);
    if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return new HistoryError('STORE_FULL', message, extra);
    if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') {
      return new HistoryError('STORE_IO', message, extra);
    }
    if (code === 'SQLITE_CONSTRAINT_TRIGGER' && /append-only/.test(message)) {
      return new HistoryError('APPEND_ONLY', message, extra);
    }
    if (code === 'ENOENT' || code === 'ENOTDIR') return new HistoryError('SOURCE_GONE', message, extra);
    if (code === 'EACCES' || code === 'EPERM' || code === 'ELOOP' || code === 'EISDIR') {
      return new HistoryError('SOURCE_UNREADABLE', message, extra);
    }
    if (TRANSIENT_ENV.has(code)) return new HistoryError('STORE_IO', message, extra);
  }
  return new HistoryError('INTERNAL', message, extra);
}

export function classify(error: HistoryErrorShape): ErrorClass {
  switch (error.code) {
    case 'STORE_BUSY':
    case 'SOURCE_BUSY':
    case 'SOURCE_UNREADABLE':
      return 'retry';
    case 'STORE_IO':
    case 'STORE_FULL':
    case 'WRITER_LOCKED':
    case 'INTERNAL':
    case 'VERIFY_FAILED':
      return 'cooldown';
    default:
      return 'fatal';
  }
}
