import * as z from 'zod/mini';
import { InvalidRequestError } from './errors.ts';

export interface PageRequest {
  page: number;
  size: number;
}

export interface PageInfo {
  page: number;
  size: number;
  totalItems: number;
  totalPages: number;
}

export interface Page<T> {
  data: T[];
  pageInfo: PageInfo;
}

export const defaultPageSize = 50;
export const maximumPageSize = 100;

const wholeNumber = /^\d+$/;

/**
 * The `page` and `size` query parameters of every list schema. They arrive as text and
 * `parsePageRequest` checks them (so its messages name the parameter); the OpenAPI document shows the
 * integers they carry, with their bounds and defaults.
 */
export const pageQueryParameters = {
  page: z.optional(z.string()).register(z.globalRegistry, {
    type: 'integer',
    minimum: 0,
    default: 0,
    description: 'Zero-based page index.',
  }),
  size: z.optional(z.string()).register(z.globalRegistry, {
    type: 'integer',
    minimum: 1,
    maximum: maximumPageSize,
    default: defaultPageSize,
    description: 'Page size.',
  }),
};

/** Shared parsing for every list endpoint: `page` ≥ 0 (default 0), `size` 1..100 (default 50); else 400. */
export function parsePageRequest(query: Record<string, string | undefined>): PageRequest {
  const page = parseWholeNumber(query.page, 'page', 0);
  const size = parseWholeNumber(query.size, 'size', defaultPageSize);
  if (size < 1 || size > maximumPageSize) {
    throw new InvalidRequestError(`Query parameter "size" must be between 1 and ${maximumPageSize}.`);
  }
  return { page, size };
}

function parseWholeNumber(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!wholeNumber.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new InvalidRequestError(`Query parameter "${name}" must be a whole number of 0 or more.`);
  }
  return Number(raw);
}

export function pageOf<T>(data: T[], request: PageRequest, totalItems: number): Page<T> {
  return {
    data,
    pageInfo: {
      page: request.page,
      size: request.size,
      totalItems,
      totalPages: Math.ceil(totalItems / request.size),
    },
  };
}
