import {
  DomainError,
  IdempotencyKeyInUseError,
  InternalError,
  MethodNotAllowedError,
  RateLimitedError,
  ValidationError,
  type ErrorCode,
  type ValidationIssue,
} from '../platform/errors.ts';

// How the spec's error codes (src/platform/errors.ts) answer over HTTP: status, `retryable`, the
// headers some codes carry, and the error envelope. The handlers' middleware, the local gateway and
// the API Gateway responses all render errors through this one module.

const statusByCode: Record<ErrorCode, number> = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  DOWNSTREAM_ERROR: 502,
};

// Retrying later can only help when the cause is transient: load, a downstream outage, or our own bug.
const retryableCodes = new Set<ErrorCode>(['RATE_LIMITED', 'INTERNAL_ERROR', 'DOWNSTREAM_ERROR']);

export function httpStatusOf(error: DomainError): number {
  return statusByCode[error.code];
}

export function isRetryable(error: DomainError): boolean {
  return retryableCodes.has(error.code) || error instanceof IdempotencyKeyInUseError;
}

/**
 * The headers an error's response carries besides the envelope's: `Allow` on 405, `Retry-After` on 429
 * and on the 409 of an Idempotency-Key still in use.
 */
export function errorHeadersOf(error: DomainError): Record<string, string> {
  if (error instanceof MethodNotAllowedError) return { Allow: error.allowedMethods.join(', ') };
  if (error instanceof RateLimitedError || error instanceof IdempotencyKeyInUseError) return { 'Retry-After': String(error.retryAfterSeconds) };
  return {};
}

export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    requestId: string;
    retryable: boolean;
    details?: ValidationIssue[];
  };
}

export function errorEnvelope(error: DomainError, requestId: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      requestId,
      retryable: isRetryable(error),
      ...(error instanceof ValidationError ? { details: error.details } : {}),
    },
  };
}

/** Anything that is not already a DomainError becomes a generic 500 that leaks nothing internal. */
export function toDomainError(error: unknown): DomainError {
  return error instanceof DomainError ? error : new InternalError();
}
