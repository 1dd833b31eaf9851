// Typed errors carrying the spec's stable codes. Domain code throws these and knows nothing of HTTP:
// src/http/error-responses.ts maps a code to its status, `retryable` and the error envelope, and one
// middleware renders it, so no handler builds an error body by hand.

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

export interface ValidationIssue {
  /** JSON path of the rejected field exactly as the client sent it, e.g. `document.url`. */
  field: string;
  issue: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export class InvalidRequestError extends DomainError {
  constructor(message: string) {
    super('INVALID_REQUEST', message);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = 'A valid API key is required: send "Authorization: api-key <key>".') {
    super('UNAUTHORIZED', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super('FORBIDDEN', message);
  }
}

export class NotFoundError extends DomainError {
  constructor(message = 'The resource does not exist.') {
    super('NOT_FOUND', message);
  }
}

export class MethodNotAllowedError extends DomainError {
  constructor(
    method: string,
    /** What the path does support; a response says it in `Allow`. */
    readonly allowedMethods: string[],
  ) {
    super('METHOD_NOT_ALLOWED', `Method ${method} is not supported for this path.`);
  }
}

export class NotAcceptableError extends DomainError {
  constructor() {
    super('NOT_ACCEPTABLE', 'Responses are JSON: send "Accept: application/json" or omit Accept.');
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

/**
 * Another request with the same Idempotency-Key is still being answered: retrying shortly gets its
 * response. A conflict that passes, so unlike other conflicts it is retryable and says when.
 */
export class IdempotencyKeyInUseError extends ConflictError {
  constructor(
    /** When a retry can find the first request answered; a response says it in `Retry-After`. */
    readonly retryAfterSeconds: number,
  ) {
    super('A request with this Idempotency-Key is still in progress; retry after the Retry-After delay to get its response.');
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor(message = 'The file exceeds the 50 MB limit.') {
    super('PAYLOAD_TOO_LARGE', message);
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  constructor(message: string) {
    super('UNSUPPORTED_MEDIA_TYPE', message);
  }
}

export class ValidationError extends DomainError {
  constructor(readonly details: ValidationIssue[]) {
    super('VALIDATION_FAILED', describeValidationIssues(details));
  }
}

export class RateLimitedError extends DomainError {
  constructor(
    /** When a retry can succeed; a response says it in `Retry-After`. */
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMITED', 'Too many requests; retry after the Retry-After delay.');
  }
}

export class DownstreamError extends DomainError {
  constructor(message = 'A downstream service failed; retry with backoff.') {
    super('DOWNSTREAM_ERROR', message);
  }
}

export class InternalError extends DomainError {
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
