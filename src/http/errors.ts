// Typed errors carrying the spec's stable codes. Domain code throws these; one middleware renders them
// as the error envelope, so no handler builds an error body by hand.

export type ErrorCode =
  | 'INVALID_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'NOT_ACCEPTABLE'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'VALIDATION_FAILED'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'DOWNSTREAM_ERROR';

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

export interface ValidationIssue {
  /** JSON path of the rejected field exactly as the client sent it, e.g. `document.url`. */
  field: string;
  issue: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly retryable: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = statusByCode[code];
    this.retryable = retryableCodes.has(code);
  }
}

export class InvalidRequestError extends ApiError {
  constructor(message: string) {
    super('INVALID_REQUEST', message);
  }
}

export class UnauthorizedError extends ApiError {
  constructor(message = 'A valid API key is required: send "Authorization: api-key <key>".') {
    super('UNAUTHORIZED', message);
  }
}

export class ForbiddenError extends ApiError {
  constructor(message: string) {
    super('FORBIDDEN', message);
  }
}

export class NotFoundError extends ApiError {
  constructor(message = 'The resource does not exist.') {
    super('NOT_FOUND', message);
  }
}

export class MethodNotAllowedError extends ApiError {
  constructor(method: string, allowedMethods: string[]) {
    super('METHOD_NOT_ALLOWED', `Method ${method} is not supported for this path.`, {
      Allow: allowedMethods.join(', '),
    });
  }
}

export class NotAcceptableError extends ApiError {
  constructor() {
    super('NOT_ACCEPTABLE', 'Responses are JSON: send "Accept: application/json" or omit Accept.');
  }
}

export class ConflictError extends ApiError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

export class PayloadTooLargeError extends ApiError {
  constructor(message = 'The file exceeds the 50 MB limit.') {
    super('PAYLOAD_TOO_LARGE', message);
  }
}

export class UnsupportedMediaTypeError extends ApiError {
  constructor(message: string) {
    super('UNSUPPORTED_MEDIA_TYPE', message);
  }
}

export class ValidationError extends ApiError {
  constructor(readonly details: ValidationIssue[]) {
    super('VALIDATION_FAILED', describeValidationIssues(details));
  }
}

export class RateLimitedError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super('RATE_LIMITED', 'Too many requests; retry after the Retry-After delay.', {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

export class DownstreamError extends ApiError {
  constructor(message = 'A downstream service failed; retry with backoff.') {
    super('DOWNSTREAM_ERROR', message);
  }
}

export class InternalError extends ApiError {
  constructor() {
    super('INTERNAL_ERROR', 'An unexpected error occurred; retry with backoff.');
  }
}

/** The spec: the message renders the rejected fields and the first few reasons; `details` lists all. */
function describeValidationIssues(details: ValidationIssue[]): string {
  // Issues are sentences of their own; the message ends with one period, not two.
  const shown = details.slice(0, 3).map((detail) => `${detail.field || '(body)'}: ${detail.issue.replace(/\.+$/, '')}`);
  const more = details.length > shown.length ? ` (and ${details.length - shown.length} more)` : '';
  return `Validation failed: ${shown.join('; ')}${more}.`;
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

export function errorEnvelope(error: ApiError, requestId: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      requestId,
      retryable: error.retryable,
      ...(error instanceof ValidationError ? { details: error.details } : {}),
    },
  };
}

/** Anything that is not already an ApiError becomes a generic 500 that leaks nothing internal. */
export function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new InternalError();
}
