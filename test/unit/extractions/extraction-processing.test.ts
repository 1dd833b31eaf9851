import { describe, expect, it } from 'vitest';
import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { asTaskError, outcomeOfFailure, TransientProcessingError } from '../../../src/extractions/extraction-processing.ts';
import { DownstreamError } from '../../../src/platform/errors.ts';

describe('outcomeOfFailure', () => {
  it('turns a caught rejection into REJECTED with its message (Lambda wraps it in a JSON Cause)', () => {
    const cause = JSON.stringify({ errorType: 'DocumentRejectedError', errorMessage: 'The PDF is encrypted.', trace: [] });

    expect(outcomeOfFailure({ Error: 'DocumentRejectedError', Cause: cause })).toEqual({
      status: 'REJECTED',
      error: { code: 'DOCUMENT_REJECTED', message: 'The PDF is encrypted.' },
    });
  });

  it('keeps the message of a fetch failure and of exhausted retries', () => {
    expect(outcomeOfFailure({ Error: 'DocumentFetchFailedError', Cause: 'HTTP 404' })).toEqual({ status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: 'HTTP 404' } });
    expect(outcomeOfFailure({ Error: 'TransientProcessingError', Cause: 'HTTP 503.' }).error!.message).toMatch(/^HTTP 503\. Gave up after retries/);
  });

  it('never leaks an unexpected error', () => {
    const outcome = outcomeOfFailure({ Error: 'TypeError', Cause: 'Cannot read properties of undefined (reading "secret")' });

    expect(outcome).toEqual({ status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: 'The document could not be processed; retry with backoff.' } });
  });
});

describe('asTaskError', () => {
  it('marks throttling, 5xx, network and downstream failures as transient', () => {
    const throttled = new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: { httpStatusCode: 400 } });
    const serverError = Object.assign(new Error('boom'), { name: 'InternalError', $metadata: { httpStatusCode: 500 } });
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

    for (const error of [throttled, serverError, reset, new DownstreamError()]) expect(asTaskError(error)).toBeInstanceOf(TransientProcessingError);
  });

  it('leaves other errors as they are, for the Catch clauses', () => {
    const conditional = new ConditionalCheckFailedException({ message: 'no', $metadata: { httpStatusCode: 400 } });
    const bug = new TypeError('bug');

    expect(asTaskError(conditional)).toBe(conditional);
    expect(asTaskError(bug)).toBe(bug);
  });
});
