import { InvalidRequestError } from '../platform/errors.ts';
import { parsePageRequest, type PageRequest } from '../platform/pagination.ts';
import type { EventType } from '../events/event-envelope.ts';
import type { ListSubscriptionsQuery } from './subscription-requests.ts';
import type { SubscriptionStatus, SubscriptionView } from './subscription.ts';

// A workspace has at most 25 subscriptions, so the list reads all of them (one Query of the
// workspace's partition) and filters, sorts and pages here: the totals are exact by construction.

export interface SubscriptionListQuery extends PageRequest {
  /** Case-insensitive substring of the name. */
  name?: string;
  status?: SubscriptionStatus;
  eventType?: EventType;
  /** Created at or after / at or before (ISO 8601, any offset). */
  from?: string;
  to?: string;
  sortBy: 'createdAt' | 'updatedAt';
  sort: 'asc' | 'desc';
}

/** The list query as the route's schema leaves it, with the defaults (createdAt, desc, page 0, size 50); `from` after `to` is 400. */
export function subscriptionListQueryOf(parameters: ListSubscriptionsQuery): SubscriptionListQuery {
  const { page, size, sortBy = 'createdAt', sort = 'desc', ...filters } = parameters;
  if (filters.from !== undefined && filters.to !== undefined && Date.parse(filters.from) > Date.parse(filters.to)) {
    throw new InvalidRequestError('Query parameter "from" must not be after "to".');
  }
  return { ...parsePageRequest({ page, size }), ...filters, sortBy, sort };
}

export function planSubscriptionList<T extends SubscriptionView>(subscriptions: readonly T[], query: SubscriptionListQuery): { data: T[]; totalItems: number } {
  const name = query.name?.toLowerCase();
  const from = query.from === undefined ? undefined : Date.parse(query.from);
  const to = query.to === undefined ? undefined : Date.parse(query.to);
  const matching = subscriptions.filter((subscription) => {
    const createdAt = Date.parse(subscription.createdAt);
    return (
      (name === undefined || subscription.name.toLowerCase().includes(name)) &&
      (query.status === undefined || subscription.status === query.status) &&
      (query.eventType === undefined || subscription.eventTypes.includes(query.eventType)) &&
      (from === undefined || createdAt >= from) &&
      (to === undefined || createdAt <= to)
    );
  });
  const direction = query.sort === 'asc' ? 1 : -1;
  // Ids are time-ordered, so subscriptions with equal times keep their creation order.
  const sorted = matching.sort((a, b) => direction * (compare(a[query.sortBy], b[query.sortBy]) || compare(a.id, b.id)));
  const start = query.page * query.size;
  return { data: sorted.slice(start, start + query.size), totalItems: matching.length };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
