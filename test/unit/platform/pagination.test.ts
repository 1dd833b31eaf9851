import { describe, expect, it } from 'vitest';
import { pageOf, parsePageRequest } from '../../../src/platform/pagination.ts';
import { InvalidRequestError } from '../../../src/platform/errors.ts';

describe('page parameters', () => {
  it('defaults to page 0 of 50', () => {
    expect(parsePageRequest({})).toEqual({ page: 0, size: 50 });
  });

  it('accepts the edges of the allowed ranges', () => {
    expect(parsePageRequest({ page: '0', size: '1' })).toEqual({ page: 0, size: 1 });
    expect(parsePageRequest({ page: '123456', size: '100' })).toEqual({ page: 123456, size: 100 });
  });

  it.each([
    { page: '-1' },
    { page: '1.5' },
    { page: 'abc' },
    { page: '' },
    { size: '0' },
    { size: '101' },
    { size: '10e1' },
    { page: '99999999999999999999' },
  ])('refuses %o with 400 INVALID_REQUEST', (query) => {
    expect(() => parsePageRequest(query)).toThrow(InvalidRequestError);
  });

  it('computes total pages from the exact total', () => {
    expect(pageOf(['a'], { page: 2, size: 10 }, 21).pageInfo).toEqual({ page: 2, size: 10, totalItems: 21, totalPages: 3 });
    expect(pageOf([], { page: 0, size: 10 }, 0).pageInfo.totalPages).toBe(0);
  });
});
