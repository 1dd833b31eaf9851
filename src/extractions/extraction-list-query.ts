import { InvalidRequestError } from '../platform/errors.ts';
import { parsePageRequest } from '../platform/pagination.ts';
import type { ExtractionStatus } from './extraction.ts';
import type { SortAttribute } from './extraction-keys.ts';
import type { ExtractionListQuery } from './extraction-listing.ts';

/** The list query as the route's zod schema leaves it (strings, checked enums and datetimes). */
export interface ListExtractionsQueryParameters {
  page?: string;
  size?: string;
  status?: ExtractionStatus;
  from?: string;
  to?: string;
  sortBy?: SortAttribute;
  sort?: 'asc' | 'desc';
  labels?: Record<string, string>;
}

/** Defaults (createdAt, desc, page 0, size 50), UTC-normalised bounds; `from` after `to` is 400. */
export function listQueryOf(parameters: ListExtractionsQueryParameters): ExtractionListQuery {
  const { page, size } = parsePageRequest({ page: parameters.page, size: parameters.size });
  const from = parameters.from !== undefined ? new Date(parameters.from).toISOString() : undefined;
  const to = parameters.to !== undefined ? new Date(parameters.to).toISOString() : undefined;
  if (from !== undefined && to !== undefined && from > to) throw new InvalidRequestError('Query parameter "from" must not be after "to".');
  const labels = parameters.labels ?? {};
  for (const key of Object.keys(labels)) {
    if (key.trim() === '') throw new InvalidRequestError('A labels[key] filter needs a key.');
  }
  return {
    page,
    size,
    ...(parameters.status ? { status: parameters.status } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    sortBy: parameters.sortBy ?? 'createdAt',
    sort: parameters.sort ?? 'desc',
    labels,
  };
}
