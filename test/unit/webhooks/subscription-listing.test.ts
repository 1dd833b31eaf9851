import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../src/platform/errors.ts';
import { planSubscriptionList, subscriptionListQueryOf, type SubscriptionListQuery } from '../../../src/webhooks/subscription-listing.ts';
import type { SubscriptionView } from '../../../src/webhooks/subscription.ts';

function aSubscription(number: number, overrides: Partial<SubscriptionView> = {}): SubscriptionView {
  const createdAt = new Date(Date.UTC(2026, 0, number)).toISOString();
  return {
    id: `sub_01JZ00000000000000000000${String(number).padStart(2, '0')}`,
    name: `Hook ${number}`,
    endpointUrl: 'https://hooks.example.com/h',
    eventTypes: ['document-insights.extraction.completed'],
    filters: {},
    status: 'active',
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
}

const query = (overrides: Partial<SubscriptionListQuery> = {}): SubscriptionListQuery => ({ page: 0, size: 50, sortBy: 'createdAt', sort: 'desc', ...overrides });
const ids = (result: { data: SubscriptionView[] }) => result.data.map((subscription) => subscription.id.slice(-2));

const subscriptions = [
  aSubscription(1, { name: 'Billing ORDERS', updatedAt: '2026-02-05T00:00:00.000Z' }),
  aSubscription(2, { status: 'paused', eventTypes: ['workflow.run.failed'] }),
  aSubscription(3, { name: 'orders archive', eventTypes: ['workflow.run.failed', 'document-insights.extraction.completed'] }),
  aSubscription(4, { status: 'paused', updatedAt: '2026-02-01T00:00:00.000Z' }),
  aSubscription(5),
];

describe('planSubscriptionList', () => {
  it('lists newest first by default, with the total', () => {
    expect(planSubscriptionList(subscriptions, query())).toEqual({ data: [...subscriptions].reverse(), totalItems: 5 });
  });

  it('sorts by updatedAt, either way', () => {
    expect(ids(planSubscriptionList(subscriptions, query({ sortBy: 'updatedAt' })))).toEqual(['01', '04', '05', '03', '02']);
    expect(ids(planSubscriptionList(subscriptions, query({ sortBy: 'updatedAt', sort: 'asc' })))).toEqual(['02', '03', '05', '04', '01']);
  });

  it('keeps creation order among equal times', () => {
    const sameTime = [aSubscription(7, { createdAt: '2026-03-01T00:00:00.000Z' }), aSubscription(6, { createdAt: '2026-03-01T00:00:00.000Z' })];

    expect(ids(planSubscriptionList(sameTime, query({ sort: 'asc' })))).toEqual(['06', '07']);
    expect(ids(planSubscriptionList(sameTime, query()))).toEqual(['07', '06']);
  });

  it('matches the name as a case-insensitive substring', () => {
    expect(ids(planSubscriptionList(subscriptions, query({ name: 'ORDERS' })))).toEqual(['03', '01']);
    expect(ids(planSubscriptionList(subscriptions, query({ name: 'ders ar' })))).toEqual(['03']);
  });

  it('filters by status and by event type', () => {
    expect(ids(planSubscriptionList(subscriptions, query({ status: 'paused' })))).toEqual(['04', '02']);
    expect(ids(planSubscriptionList(subscriptions, query({ eventType: 'workflow.run.failed' })))).toEqual(['03', '02']);
    expect(ids(planSubscriptionList(subscriptions, query({ eventType: 'workflow.run.completed' })))).toEqual([]);
  });

  it('filters by a creation window, bounds included, whatever their offset', () => {
    expect(ids(planSubscriptionList(subscriptions, query({ from: '2026-01-02T00:00:00Z', to: '2026-01-04T01:00:00+01:00' })))).toEqual(['04', '03', '02']);
  });

  it('pages the filtered list with the exact total', () => {
    const filtered = query({ eventType: 'document-insights.extraction.completed', size: 2 });

    expect(planSubscriptionList(subscriptions, { ...filtered, page: 0 })).toMatchObject({ totalItems: 4 });
    expect(ids(planSubscriptionList(subscriptions, { ...filtered, page: 0 }))).toEqual(['05', '04']);
    expect(ids(planSubscriptionList(subscriptions, { ...filtered, page: 1 }))).toEqual(['03', '01']);
    expect(planSubscriptionList(subscriptions, { ...filtered, page: 2 })).toEqual({ data: [], totalItems: 4 });
  });
});

describe('subscriptionListQueryOf', () => {
  it('applies the defaults', () => {
    expect(subscriptionListQueryOf({})).toEqual({ page: 0, size: 50, sortBy: 'createdAt', sort: 'desc' });
  });

  it('refuses from after to, and bad paging, as 400', () => {
    expect(() => subscriptionListQueryOf({ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' })).toThrow(InvalidRequestError);
    expect(() => subscriptionListQueryOf({ size: '101' })).toThrow(InvalidRequestError);
  });
});
