import { describe, expect, it } from 'vitest';
import { ApiError, apiErrorLines } from '../../../src/cli/cli-errors.ts';

describe('apiErrorLines', () => {
  it('prints a 422 reason once: the message names it, so its detail is not repeated', () => {
    const error = new ApiError(422, 'VALIDATION_FAILED', "Validation failed: fieldId: is not the id of a field in this extraction's output.", 'req_1', [
      { field: 'fieldId', issue: "is not the id of a field in this extraction's output." },
    ]);

    expect(apiErrorLines(error)).toEqual(["VALIDATION_FAILED (HTTP 422): Validation failed: fieldId: is not the id of a field in this extraction's output.", 'Request id: req_1']);
  });

  it('lists the details the message leaves out (it names the first three)', () => {
    const details = ['a', 'b', 'c', 'd'].map((field) => ({ field, issue: 'is required' }));
    const error = new ApiError(422, 'VALIDATION_FAILED', 'Validation failed: a: is required; b: is required; c: is required (and 1 more).', 'req_2', details);

    expect(apiErrorLines(error)).toEqual(['VALIDATION_FAILED (HTTP 422): Validation failed: a: is required; b: is required; c: is required (and 1 more).', '  d: is required', 'Request id: req_2']);
  });

  it('shows a detail about the whole body, whose field is empty, once', () => {
    const error = new ApiError(422, 'VALIDATION_FAILED', 'Validation failed: (body): must be an object.', undefined, [{ field: '', issue: 'must be an object' }]);

    expect(apiErrorLines(error)).toEqual(['VALIDATION_FAILED (HTTP 422): Validation failed: (body): must be an object.', 'Request id: (none returned)']);
  });
});
