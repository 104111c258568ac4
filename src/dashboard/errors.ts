// API errors: `{error: {code, message}}` with a 4xx status for what the
// caller can fix (bad input, unknown id), 503 for a busy store, 500 only for
// a fault of ours. HistoryErrors keep their code.

import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { HistoryError } from '../../protocols/errors.ts';

export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string };
}

export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function badInput(message: string): ApiError {
  return new ApiError(400, 'BAD_INPUT', message);
}

export function notFound(message: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', message);
}

function statusOf(error: HistoryError): ContentfulStatusCode {
  switch (error.code) {
    case 'BAD_INPUT':
      return 400;
    case 'STORE_BUSY':
    case 'STOPPED':
      return 503;
    case 'SCHEMA_TOO_NEW':
    case 'CONFIG_INVALID':
      return 409;
    default:
      return 500;
  }
}

export function errorResponse(c: Context, error: unknown): Response {
  if (error instanceof ApiError) return c.json(errorBody(error.code, error.message), error.status);
  if (error instanceof HistoryError) return c.json(errorBody(error.code, error.message), statusOf(error));
  return c.json(errorBody('INTERNAL', error instanceof Error ? error.message : String(error)), 500);
}
