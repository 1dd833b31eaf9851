import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  InternalError,
  MethodNotAllowedError,
  RateLimitedError,
  ValidationError,
} from '../../../src/platform/errors.ts';
import { errorEnvelope, errorHeadersOf, httpStatusOf, isRetryable, toDomainError } from '../../../src/http/error-responses.ts';

describe('error envelope', () => {
  it('renders code, message, requestId and retryable, without details for ordinary errors', () => {
    const envelope = errorEnvelope(new ConflictError('Still processing.'), 'req-1');

    expect(envelope).toEqual({ error: { code: 'CONFLICT', message: 'Still processing.', requestId: 'req-1', retryable: false } });
  });

  it('lists every validation issue in details and names the first few in the message', () => {
    const details = [
      { field: 'document.url', issue: 'must use https' },
      { field: 'labels.docType', issue: 'must not be blank' },
      { field: 'labels.a', issue: 'too long' },
      { field: 'labels.b', issue: 'too long' },
    ];

    const envelope = errorEnvelope(new ValidationError(details), 'req-2');

    expect(envelope.error.code).toBe('VALIDATION_FAILED');
    expect(envelope.error.details).toEqual(details);
    expect(envelope.error.message).toContain('document.url: must use https');
    expect(envelope.error.message).toContain('and 1 more');
    expect(new ValidationError([{ field: 'document.url', issue: 'The URL must use https.' }]).message).toBe('Validation failed: document.url: The URL must use https.');
  });

  it.each([
    [new RateLimitedError(3), 429, true],
    [new InternalError(), 500, true],
    [new ConflictError('x'), 409, false],
  ])('sets status and retryable per code (%s)', (error, status, retryable) => {
    expect(httpStatusOf(error)).toBe(status);
    expect(isRetryable(error)).toBe(retryable);
  });

  it('turns unknown failures into a generic 500 that leaks nothing', () => {
    const error = toDomainError(new Error('connect ECONNREFUSED 10.0.0.5:5432 password=secret'));

    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.message).not.toMatch(/ECONNREFUSED|secret/);
  });

  it('carries the Allow header on 405', () => {
    expect(errorHeadersOf(new MethodNotAllowedError('PUT', ['GET', 'POST']))).toEqual({ Allow: 'GET, POST' });
  });
});
